/**
 * The demo page: the eight steps of docs/demo.md, each run by a button, each showing the JSON
 * exchanged and the checks made (✓/✗). Three wallets live in this browser, keys in IndexedDB:
 * the agent, the user (who consents) and the sub-agent. The service-worker verifier guards
 * `/api/files/*` of this origin; the page lists the checks the worker reports for each call,
 * one by one, beside the worker's answer.
 *
 * One file per step in steps/; story.ts holds what they share, verifier.ts the worker, dom.ts and
 * step-view.ts the page's elements. This file puts them on the page.
 */
import { byId, element } from './dom.ts';
import { renderStep } from './step-view.ts';
import { auditTrailStep } from './steps/audit-trail.ts';
import { callApiStep } from './steps/call-api.ts';
import { consentStep } from './steps/consent.ts';
import { delegateStep } from './steps/delegate.ts';
import { mcpToolStep } from './steps/mcp-tool.ts';
import { mintTokenStep } from './steps/mint-token.ts';
import { onboardStep } from './steps/onboard.ts';
import { refusalsStep } from './steps/refusals.ts';
import { createStory, type DemoConfig, type StepDefinition, type Story } from './story.ts';
import { startVerifier } from './verifier.ts';

/** Who is who in the story, in the page's header. */
function showParties(config: DemoConfig): void {
  const parties = byId('parties');
  const addParty = (name: string, value: string) => {
    parties.append(element('dt', {}, name), element('dd', { 'data-party': name }, value));
  };
  addParty('issuer', config.issuerDid);
  addParty('service provider', config.providerDid);
  addParty('target (proof domain)', config.target);
  addParty('MCP server (OAuth resource)', config.mcpResource);
}

/** The eight steps of docs/demo.md, in order. */
function storySteps(story: Story): StepDefinition[] {
  return [
    mintTokenStep(story),
    onboardStep(story),
    consentStep(story),
    delegateStep(story),
    callApiStep(story),
    mcpToolStep(story),
    refusalsStep(story),
    auditTrailStep(story),
  ];
}

async function main(): Promise<void> {
  const config = (await (await fetch('/demo/config.json')).json()) as DemoConfig;
  showParties(config);
  const verifier = startVerifier(config, byId('verifier-status'));
  const story = createStory(config, verifier);
  const container = byId('steps');
  storySteps(story).forEach((step, i) => container.append(renderStep(step, i + 1)));
  await verifier.ready.catch(() => undefined);
}

void main();
