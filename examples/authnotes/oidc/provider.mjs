// A real OpenID provider (the oidc-provider package) configured as
// docs/auth.md's worked authorization server for an MCP server: resource
// indicators with JWT access tokens for the MCP endpoint, its scopes,
// refresh tokens through offline_access, DPoP, Dynamic Client Registration.
// examples/authnotes's TestOIDCProvider starts it:
//
//   node provider.mjs --resource http://127.0.0.1:PORT/mcp --scopes "notes.read notes.write"
//
// It listens on a free loopback port and prints {"issuer": "..."} on one
// line of stdout once it serves. The login is an interaction of its own
// that the test completes over HTTP: GET /interaction/UID answers the
// prompt (login or consent) as JSON, POST /interaction/UID/login with
// login=NAME signs NAME in, POST /interaction/UID/consent grants what the
// client asked for.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

import Provider, { errors } from 'oidc-provider';

const { values: args } = parseArgs({
  options: {
    resource: { type: 'string' },
    scopes: { type: 'string', default: 'notes.read notes.write' },
  },
});
if (!args.resource) {
  console.error('provider.mjs: --resource (the MCP endpoint\'s URL) is required');
  process.exit(2);
}
const resource = args.resource;
const resourceScopes = args.scopes;

// The signing key of the access tokens: ES256, published at jwks_uri.
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'es256-1', alg: 'ES256', use: 'sig' };

// The configuration docs/auth.md shows, word for word.
const configuration = {
  jwks: { keys: [signingKey] },                        // an ES256 key: the access tokens' signatures
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  clientDefaults: { id_token_signed_response_alg: 'ES256' },
  scopes: ['openid', 'offline_access', ...resourceScopes.split(' ')],
  findAccount: (ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  pkce: { required: () => true },                      // S256, for every client
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },                   // Dynamic Client Registration
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resourceIndicator) => {
        if (resourceIndicator !== resource) throw new errors.InvalidTarget();
        return {
          scope: resourceScopes,                       // what the MCP server's tools need
          audience: resource,                          // aud: the MCP endpoint
          accessTokenFormat: 'jwt',                    // at+jwt, verified against jwks_uri
          accessTokenTTL: 3600,
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
    dPoP: { enabled: true },                           // tokens bound to the client's key on request
  },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
};

const server = createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, configuration);
  const callback = provider.callback();
  server.on('request', (req, res) => {
    const m = /^\/interaction\/([^/?]+)(?:\/(login|consent))?$/.exec(req.url);
    if (!m) {
      callback(req, res);
      return;
    }
    interaction(provider, req, res, m[2]).catch((err) => {
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: String(err) }));
    });
  });
  console.log(JSON.stringify({ issuer }));
});

// interaction serves the login and consent steps: the prompt as JSON, and
// the user's answers.
async function interaction(provider, req, res, step) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session, grantId } = details;
  if (req.method === 'GET' && !step) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ prompt: prompt.name, details: prompt.details, params }));
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  if (step === 'login') {
    const form = new URLSearchParams(await body(req));
    await provider.interactionFinished(req, res, { login: { accountId: form.get('login') } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = grantId
    ? await provider.Grant.find(grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  if (prompt.details.missingOIDCScope) {
    grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
  }
  for (const [indicator, scopes] of Object.entries(prompt.details.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const id = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId: id } }, { mergeWithLastSubmission: true });
}

function body(req) {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { data += chunk; });
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}
