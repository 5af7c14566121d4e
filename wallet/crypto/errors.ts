/**
 * The one error base of Mandate. Like jose, every failure is a class with a stable `code`
 * (callers branch on `code`, never on message text); messages are for humans and never
 * carry secrets. Each module declares its own code union and subclass next to the checks
 * that raise them, so a reader finds a check by grepping its code.
 */
export class MandateError<C extends string = string> extends Error {
  override name = 'MandateError';
  readonly code: C;

  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True when `error` is a MandateError, optionally with the given code. */
export function isMandateError(error: unknown, code?: string): error is MandateError {
  return error instanceof MandateError && (code === undefined || error.code === code);
}
