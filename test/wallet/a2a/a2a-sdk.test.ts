// A2A interop with the official JavaScript SDK (@a2a-js/sdk, from npm): an A2A server built with
// the SDK's Express handlers serves a card Mandate signed for an agent onboarded at a real
// issuer; the SDK's client fetches the card, Mandate's verifyAgentCard checks it (signature,
// DID key, credential chain and its status list over HTTP), then the client sends a message
// and gets the answer. Both ways for the signature itself: the SDK's verifyAgentCardSignature
// accepts Mandate's, and Mandate accepts one the SDK made with the agent's key.
// The JSON-RPC route sits behind Mandate's Node verifier middleware: the client's fetch signs
// every request (RFC 9421) and names the agent's credential chain, in full first, then by digest
// (docs/protocol.md §Signed requests); a request changed or replayed in transit is refused.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AgentCard as SdkAgentCard,
  Role,
  SendMessageRequest,
  generateAgentCardSignature,
  verifyAgentCardSignature as sdkVerifyAgentCardSignature,
  type Message,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAgentCard, type SignedAgentCard } from '../../../wallet/a2a/sign.ts';
import { verifyAgentCard, type VerifyAgentCardOptions } from '../../../wallet/a2a/verify.ts';
import { bytesToBase64url } from '../../../wallet/crypto/base64url.ts';
import { generateSeed, seedSigner } from '../../../wallet/crypto/ed25519.ts';
import type { JsonObject } from '../../../wallet/crypto/json-value.ts';
import { createCachedResolver } from '../../../wallet/did/cache.ts';
import { resolveDidKey } from '../../../wallet/did/key.ts';
import { createResolver } from '../../../wallet/did/registry.ts';
import { createKeyResolver } from '../../../wallet/did/verification-method.ts';
import { createWebResolver } from '../../../wallet/did/web.ts';
import { createStatusListClient } from '../../../wallet/status/client.ts';
import { didKeyIdentity, type SigningIdentity } from '../../../wallet/vc/identity.ts';
import { identityRequestSigner } from '../../../wallet/http-signatures/sign.ts';
import { signChainedRequest, signingFetch } from '../../../wallet/vc/chain-request.ts';
import { nodeMiddleware } from '../../../verifier-worker/node-http.ts';
import { onboardSelfAgent, startTestIssuer, type TestIssuer } from '../../support/issuer.ts';
import { newIdentity } from '../../support/agents.ts';

const CARD_PATH = '/.well-known/agent-card.json';

let issuer: TestIssuer;
let issuerDid: string;
let seed: Uint8Array;
let agent: SigningIdentity;
let credential: JsonObject;
let vcId: string;
let server: Server;
let base: string;
/** The card the A2A server serves: each test sets it. */
let served: unknown;
/** Who the A2A server's handler saw calling: the claims the verifier forwarded. */
const callers: Array<{ user: string | undefined; scopes: string | undefined }> = [];
/** Each request the client's signing fetch sent, and the answer's status. */
const sent: Array<{ request: Request; byDigest: boolean; status: number }> = [];

/**
 * The A2A client's fetch: Mandate's signingFetch (every request signed with the agent's key,
 * naming its chain in full until the verifier accepted it, by digest afterwards), recording
 * what it sent.
 */
function recordingSigningFetch(credentials: readonly unknown[]): typeof fetch {
  return signingFetch({
    signer: identityRequestSigner(agent),
    credentials,
    fetch: async (signed) => {
      const response = await fetch(signed.clone());
      sent.push({ request: signed, byDigest: signed.headers.has('mandate-chain-digest'), status: response.status });
      return response;
    },
  });
}

function signedClient(card: SdkAgentCard) {
  const transports = [new JsonRpcTransportFactory({ fetchImpl: recordingSigningFetch([credential]) })];
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports }),
  ).createFromAgentCard(card);
}

function ask(text: string, id: string = crypto.randomUUID()): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: id, role: 'ROLE_USER', parts: [{ text }] } });
}

/** A fresh verifier, as an A2A client would run one: did:web and status lists over HTTP. */
function verifierOptions(extra: Partial<VerifyAgentCardOptions> = {}): VerifyAgentCardOptions {
  const resolver = createCachedResolver(
    createResolver({ methods: { key: resolveDidKey, web: createWebResolver({ allowHttpLoopback: true }) } }),
  );
  const statusLists = createStatusListClient({ resolveKey: createKeyResolver(resolver), allowHttpLoopback: true });
  return { trustedIssuers: [issuerDid], expectedDomain: 'files.example.com', resolver, statusLists, ...extra };
}

function plainCard(): Parameters<typeof signAgentCard>[0] {
  return {
    name: 'Files agent',
    description: 'Answers questions about files',
    supportedInterfaces: [{ url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'answer', name: 'Answer', description: 'Answers a question', tags: ['files'] }],
  };
}

/** The agent's Ed25519 key as node:crypto objects, for the SDK's jose-based signing and checking. */
function agentKeys(): { privateKey: KeyObject; publicKey: KeyObject } {
  const x = bytesToBase64url(agent.signer.publicKey);
  const jwk = { kty: 'OKP', crv: 'Ed25519', x };
  return {
    privateKey: createPrivateKey({ key: { ...jwk, d: bytesToBase64url(seed) }, format: 'jwk' }),
    publicKey: createPublicKey({ key: jwk, format: 'jwk' }),
  };
}

/** The agent's logic: it answers every message with one message. */
const executor: AgentExecutor = {
  execute: async (context, bus) => {
    callers.push(JSON.parse(context.context.user?.userName ?? '{}') as (typeof callers)[number]);
    const question = context.userMessage.parts
      .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
      .join('');
    const answer: Message = {
      messageId: crypto.randomUUID(),
      contextId: context.contextId,
      taskId: '',
      role: Role.ROLE_AGENT,
      parts: [
        {
          content: { $case: 'text', value: `files agent heard: ${question}` },
          metadata: undefined,
          filename: '',
          mediaType: '',
        },
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    bus.publish(AgentEvent.message(answer));
    bus.finished();
    return Promise.resolve();
  },
  cancelTask: () => Promise.resolve(),
};

beforeAll(async () => {
  issuer = await startTestIssuer();
  issuerDid = (await issuer.call('/.well-known/did.json')).json.id as string;
  seed = generateSeed();
  agent = didKeyIdentity(seedSigner(seed));
  const onboarded = await onboardSelfAgent(issuer, agent);
  credential = onboarded.verifiableCredential as JsonObject;
  vcId = onboarded.vcId;

  const app = express();
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  served = await signAgentCard(plainCard(), agent, { credentials: [credential] });
  // The card is served as JSON exactly as Mandate signed it.
  app.use(CARD_PATH, agentCardHandler({ agentCardProvider: () => Promise.resolve(served as SdkAgentCard) }));
  const requestHandler = new DefaultRequestHandler(SdkAgentCard.fromJSON(served), new InMemoryTaskStore(), executor);
  // The JSON-RPC route behind Mandate's verifier: express.json keeps the bytes it parsed
  // (req.rawBody), which the middleware checks the signed Content-Digest against; the SDK's own
  // body parser then finds the body read and keeps req.body. The user is built from the claims.
  app.use(
    '/a2a/jsonrpc',
    express.json({ verify: (req, _res, bytes) => Object.assign(req, { rawBody: bytes }) }),
    nodeMiddleware({
      trustedIssuers: [issuerDid],
      target: 'files.example.com',
      requiredScopes: ['files:read'],
      resolver: createResolver({
        methods: { key: resolveDidKey, web: createWebResolver({ allowHttpLoopback: true }) },
      }),
      urlPolicy: { allowHttpLoopback: true },
    }),
    jsonRpcHandler({
      requestHandler,
      userBuilder: (req) => {
        const claims = { user: req.header('x-mandate-agent-did'), scopes: req.header('x-mandate-scopes') };
        return Promise.resolve({ isAuthenticated: claims.user !== undefined, userName: JSON.stringify(claims) });
      },
    }),
  );
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await issuer.dispose();
});

describe('an A2A server whose card Mandate signs, and an A2A client that checks it', () => {
  it("the SDK's client fetches the card, verifyAgentCard accepts it, and the agent answers a message", async () => {
    const card = await new DefaultAgentCardResolver().resolve(base);
    const result = await verifyAgentCard(card, verifierOptions({ requiredScopes: ['files:read'] }));
    expect(result).toMatchObject({ valid: true, agentDid: agent.did, keyId: agent.verificationMethod });
    if (!result.valid) return;
    expect(result.chain).toEqual([expect.objectContaining({ issuer: issuerDid, subject: agent.did })]);
    expect(result.sources.statusLists.length).toBeGreaterThan(0);

    const client = await signedClient(card);
    const reply = await client.sendMessage(ask('which files?', 'm-1'));
    expect('parts' in reply ? reply.parts[0]?.content : undefined).toEqual({
      $case: 'text',
      value: 'files agent heard: which files?',
    });
  });

  it("the SDK's own verifyAgentCardSignature accepts Mandate's signature", async () => {
    const card = await new DefaultAgentCardResolver().resolve(base);
    const { publicKey } = agentKeys();
    const kids: string[] = [];
    await sdkVerifyAgentCardSignature((kid) => {
      kids.push(kid);
      return Promise.resolve(publicKey);
    })(card);
    expect(kids).toEqual([agent.verificationMethod]);
  });

  it('Mandate accepts a signature the SDK made with the agent key', async () => {
    const signed = served as SignedAgentCard;
    const { signatures: _, ...unsigned } = signed;
    const sign = generateAgentCardSignature(agentKeys().privateKey, {
      alg: 'EdDSA',
      typ: 'JOSE',
      kid: agent.verificationMethod,
    });
    const bySdk = await sign(unsigned as unknown as SdkAgentCard);
    const result = await verifyAgentCard(JSON.parse(JSON.stringify(bySdk)), verifierOptions());
    expect(result).toMatchObject({ valid: true, agentDid: agent.did });
  });

  it('refuses a tampered card the server serves', async () => {
    const genuine = served as SignedAgentCard;
    served = { ...genuine, skills: [{ id: 'pay', name: 'Pay', description: 'Moves money', tags: ['payments'] }] };
    try {
      const card = await new DefaultAgentCardResolver().resolve(base);
      expect(await verifyAgentCard(card, verifierOptions())).toMatchObject({
        valid: false,
        reason: 'A2A_CARD_SIGNATURE_INVALID',
      });
    } finally {
      served = genuine;
    }
  });

  it("refuses a card whose key is not the DID's: another key signs the agent's DID and credential", async () => {
    const genuine = served as SignedAgentCard;
    const mallory = newIdentity();
    const forged = await signAgentCard(plainCard(), mallory, { credentials: [credential] });
    // Mallory's card names the agent's DID in the extension, signed under her own kid.
    const extensions = forged.capabilities.extensions?.map((e) => ({
      ...e,
      params: { did: agent.did, credentials: [credential] },
    }));
    served = { ...forged, capabilities: { ...forged.capabilities, extensions } };
    try {
      const card = await new DefaultAgentCardResolver().resolve(base);
      expect(await verifyAgentCard(card, verifierOptions())).toMatchObject({
        valid: false,
        reason: 'KEY_NOT_AUTHORIZED',
      });
    } finally {
      served = genuine;
    }
  });

  it('sends its messages signed, the chain in full first and by digest afterwards; the handler sees the claims', async () => {
    sent.length = 0;
    callers.length = 0;
    const client = await signedClient(SdkAgentCard.fromJSON(served));
    for (const text of ['first', 'second']) {
      const reply = await client.sendMessage(ask(text));
      expect('parts' in reply ? reply.parts[0]?.content : undefined).toEqual({
        $case: 'text',
        value: `files agent heard: ${text}`,
      });
    }
    expect(sent.map(({ byDigest, status }) => ({ byDigest, status }))).toEqual([
      { byDigest: false, status: 200 },
      { byDigest: true, status: 200 },
    ]);
    expect(sent[0]?.request.headers.has('mandate-chain')).toBe(true);
    expect(sent[1]?.request.headers.has('mandate-chain-digest')).toBe(true);
    expect(sent[1]?.request.headers.get('content-digest')).toMatch(/^sha-256=:/);
    expect(callers).toEqual([
      { user: agent.did, scopes: 'files:read files:write' },
      { user: agent.did, scopes: 'files:read files:write' },
    ]);
  });

  it('refuses a signed message replayed, or whose body was changed in transit, with its reason code', async () => {
    sent.length = 0;
    callers.length = 0;
    const client = await signedClient(SdkAgentCard.fromJSON(served));
    await client.sendMessage(ask('pay nobody'));
    const genuine = sent[0]?.request as Request;

    const replayed = await fetch(genuine.clone());
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toMatchObject({ valid: false, reason: 'HTTP_SIGNATURE_REPLAYED' });

    // A fresh signature (new nonce) over the genuine message, delivered with another question.
    const body = await genuine.clone().text();
    const headers = { 'content-type': genuine.headers.get('content-type') ?? 'application/json' };
    const signed = await signChainedRequest(
      new Request(genuine.url, { method: 'POST', headers, body }),
      identityRequestSigner(agent),
      [credential],
    );
    const changed = await fetch(
      new Request(signed.url, {
        method: 'POST',
        headers: signed.headers,
        body: body.replace('pay nobody', 'pay mallory'),
      }),
    );
    expect(changed.status).toBe(401);
    expect(await changed.json()).toMatchObject({ valid: false, reason: 'CONTENT_DIGEST_MISMATCH' });
    // Only the genuine message reached the agent.
    expect(callers).toHaveLength(1);
  });

  it('refuses the card once the issuer revokes the credential it carries', async () => {
    const revoked = await issuer.call(`/v1/vcs/${encodeURIComponent(vcId)}/revoke`, { admin: true, body: {} });
    expect(revoked.status).toBe(200);
    const card = await new DefaultAgentCardResolver().resolve(base);
    expect(await verifyAgentCard(card, verifierOptions())).toMatchObject({
      valid: false,
      reason: 'CREDENTIAL_REVOKED',
    });
  });
});
