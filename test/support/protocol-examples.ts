// The complete, really signed examples in docs/examples/, built deterministically (fixed seeds,
// ids and times; Ed25519 signatures are deterministic), so an implementer can check their own
// verifier against them and test/docs/protocol-examples.test.ts can prove the docs still match
// the code. `npm run docs:examples` rewrites the files.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sha256Utf8 } from '../../wallet/crypto/hash.ts';
import { seedSigner } from '../../wallet/crypto/ed25519.ts';
import { createStatusList, setStatus } from '../../wallet/status/bitstring.ts';
import { buildStatusListCredential, buildStatusListEntry } from '../../wallet/status/credential.ts';
import { encodeStatusList } from '../../wallet/status/encoded-list.ts';
import { createProof } from '../../wallet/crypto/data-integrity.ts';
import { issueAgentCredential } from '../../wallet/vc/agent-credential.ts';
import { delegate } from '../../wallet/vc/delegation.ts';
import { createConsent, issueGrant } from '../../wallet/vc/grant.ts';
import { didKeyIdentity, type SigningIdentity } from '../../wallet/vc/identity.ts';
import { signPresentation } from '../../wallet/vc/presentation.ts';

export const EXAMPLE_NOW = new Date('2026-11-22T10:10:30Z');
export const EXAMPLE_TARGET = 'files.example.com';
export const EXAMPLE_CHALLENGE = 'c0ffee-5e55-10n';
export const EXAMPLE_STATUS_URL = 'https://issuer.example.com/v1/status-list/revocation-1';

function exampleIdentity(name: string): SigningIdentity {
  return didKeyIdentity(seedSigner(sha256Utf8(`mandate protocol example: ${name}`)));
}

export async function buildProtocolExamples() {
  const issuer = exampleIdentity('platform issuer');
  const agent = exampleIdentity('agent A');
  const subAgent = exampleIdentity('agent B');
  const provider = exampleIdentity('service provider');
  const user = exampleIdentity('user');

  const list = createStatusList();
  setStatus(list, 4242, 1); // some other credential, revoked
  const statusEntry = buildStatusListEntry({
    statusListCredential: EXAMPLE_STATUS_URL,
    statusListIndex: 93127,
    statusPurpose: 'revocation',
  });
  const statusList = await createProof(
    buildStatusListCredential({
      id: EXAMPLE_STATUS_URL,
      issuer: issuer.did,
      validFrom: '2026-11-22T10:00:00Z',
      statusPurpose: 'revocation',
      encodedList: await encodeStatusList(list),
      ttl: 300_000,
    }),
    {
      signer: issuer.signer,
      verificationMethod: issuer.verificationMethod,
      proofPurpose: 'assertionMethod',
      created: '2026-11-22T10:00:00Z',
    },
  );

  const agentCredential = await issueAgentCredential({
    id: 'urn:uuid:0b7d3c7e-5c43-4a53-9d6c-3f1f0f3b1a01',
    issuer,
    agentDid: agent.did,
    privilegeScopes: ['files', 'calendar:read'],
    delegationDepth: 2,
    domains: [EXAMPLE_TARGET, 'calendar.example.com'],
    validFrom: new Date('2026-11-22T10:00:00Z'),
    validUntil: new Date('2027-11-22T10:00:00Z'),
    credentialStatus: [statusEntry],
    created: new Date('2026-11-22T10:00:00Z'),
  });
  const delegatedCredential = await delegate(agentCredential, {
    id: 'urn:uuid:5f2e9a4c-7d1b-4e8f-a3c6-9b0d2e4f6a18',
    delegator: agent,
    delegateeDid: subAgent.did,
    scopes: ['files:read', 'files:write'],
    domains: [EXAMPLE_TARGET],
    validFrom: new Date('2026-11-22T10:05:00Z'),
    validUntil: new Date('2026-11-23T10:05:00Z'),
    created: new Date('2026-11-22T10:05:00Z'),
  });
  const consent = await createConsent({
    user,
    agentDid: agent.did,
    providerDid: provider.did,
    privilegeScopes: ['files:read'],
    challenge: 'consent-challenge-7f3a',
    created: new Date('2026-11-22T10:06:00Z'),
  });
  const grant = await issueGrant({
    id: 'urn:uuid:c8a1d3e5-2b4f-4a6c-8e0d-1f3b5d7f9a2c',
    provider,
    agentDid: agent.did,
    privilegeScopes: ['files:read'],
    consent,
    ceiling: agentCredential.credentialSubject.privilegeScopes,
    validFrom: new Date('2026-11-22T10:06:00Z'),
    validUntil: new Date('2027-05-22T10:06:00Z'),
    created: new Date('2026-11-22T10:06:00Z'),
  });
  const presentation = await signPresentation({
    id: 'urn:uuid:6a4bd2f6-1f47-4d4b-8a63-2a8de8c4c1b5',
    holder: subAgent,
    credentials: [delegatedCredential, agentCredential, grant],
    challenge: EXAMPLE_CHALLENGE,
    domain: EXAMPLE_TARGET,
    created: new Date('2026-11-22T10:10:00Z'),
  });
  return {
    identities: {
      issuer: issuer.did,
      agent: agent.did,
      subAgent: subAgent.did,
      provider: provider.did,
      user: user.did,
    },
    statusList,
    agentCredential,
    delegatedCredential,
    grant,
    presentation,
  };
}

export const EXAMPLES_DIR = fileURLToPath(new URL('../../docs/examples/', import.meta.url));

if (process.argv.includes('--write')) {
  const examples = await buildProtocolExamples();
  for (const [name, value] of Object.entries(examples)) {
    writeFileSync(`${EXAMPLES_DIR}${name}.json`, `${JSON.stringify(value, null, 2)}\n`);
  }
  console.log(`wrote ${Object.keys(examples).length} examples to ${EXAMPLES_DIR}`);
}
