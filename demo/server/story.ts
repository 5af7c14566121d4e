/** What the demo's story is about: one service, two scopes. */

/** The service name presentations to the demo API are bound to (their proof domain). */
export const DEMO_TARGET = 'files.demo.localhost';
/** What the operator allows the agent, and what the provider asks the user to approve. */
export const DEMO_SCOPES = Object.freeze(['files:read', 'files:write']);
