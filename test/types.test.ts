// The tests that build TypeScript programs — the pinned public surface and the documented
// examples — in one file, so that they run in one worker: test/support/typescript.ts parses
// lib.d.ts, @types/node, the MCP SDK and our sources once per worker and reuses the previous
// program, so the second and third checks cost a fraction of the first. As three test files they
// landed in three workers and each parsed everything again (~10 CPU-s each on the 2-core box;
// together here, ~13). Each lives beside what it checks, as x.types.ts; run one with `-t`.
import './wallet/public-surface.types.ts';
import './docs/library.types.ts';
import './verifier/mcp/docs.types.ts';
