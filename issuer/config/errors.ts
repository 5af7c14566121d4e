/**
 * How a configuration problem is reported: `ConfigError` with a stable code, and `Problems`,
 * which collects every problem of one start so they are reported together (fixing a production
 * environment must not take one restart per mistake).
 */
import type { z } from 'zod';
import { MandateError } from '../../wallet/crypto/errors.ts';

export type ConfigErrorCode = 'CONFIG_INVALID' | 'CONFIG_MISSING' | 'SECRETS_FILE_INVALID';

export class ConfigError extends MandateError<ConfigErrorCode> {
  override name = 'ConfigError';
  /**
   * Every problem found, each one line naming its variable (`PORT: …`). The message is that
   * line when there is one, else `N problems: A; B; …`; `code` is the first problem's.
   */
  readonly problems: readonly string[];

  constructor(code: ConfigErrorCode, message: string, problems: readonly string[] = [message]) {
    super(code, problems.length > 1 ? `${problems.length} problems: ${problems.join('; ')}` : message);
    this.problems = problems;
  }
}

/** A value that breaks its variable's rule: `message` starts with the variable's name. */
export function invalid(message: string): never {
  throw new ConfigError('CONFIG_INVALID', message);
}

/** One line for a zod issue, named by its variable. */
export function issueLine(issue: z.core.$ZodIssue | undefined): string {
  const name = issue?.path.join('.') || 'environment';
  return `${name}: ${issue?.message ?? 'invalid value'}`;
}

/**
 * The problems of one start. Each check still throws its ConfigError at the first thing wrong
 * with its variable; `check` records it and goes on with a stand-in value, so the checks of
 * every other variable run too, and `throwIfAny` reports them together.
 */
export class Problems {
  readonly #found: ConfigError[] = [];

  check<T>(fallback: T, run: () => T): T {
    try {
      return run();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.#found.push(error);
      return fallback;
    }
  }

  get any(): boolean {
    return this.#found.length > 0;
  }

  throwIfAny(): void {
    if (this.any) this.report();
  }

  /** Throws one ConfigError carrying every problem recorded (at least one: callers check `any`). */
  report(): never {
    const [first] = this.#found;
    if (first === undefined) invalid('environment: invalid');
    throw new ConfigError(
      first.code,
      first.message,
      this.#found.flatMap((e) => e.problems),
    );
  }
}
