// Prints per-project counts and, last, the plain closing line CI reads:
// `Tests: N passed, N failed` (both projects together).
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>): void {
    const perProject = new Map<string, { passed: number; failed: number; skipped: number }>();
    for (const module of modules) {
      const name = module.project.name || 'default';
      const counts = perProject.get(name) ?? { passed: 0, failed: 0, skipped: 0 };
      perProject.set(name, counts);
      const tests = [...module.children.allTests()];
      // A file that failed outside its tests (an import, a beforeAll) counts as one failure:
      // its tests themselves report skipped, and the closing line must not read "0 failed".
      if (module.state() === 'failed' && !tests.some((test) => test.result().state === 'failed')) counts.failed++;
      for (const test of tests) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    let passed = 0;
    let failed = errors.length;
    for (const [name, c] of [...perProject].sort()) {
      console.log(`Project ${name}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
      passed += c.passed;
      failed += c.failed;
    }
    console.log(`Tests: ${passed} passed, ${failed} failed`);
  }
}
