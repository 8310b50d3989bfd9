// A real OpenID provider for the sign-in tests (issue #29): panva's certified `oidc-provider`,
// served over HTTPS on 127.0.0.1 with a throwaway CA made here (openssl), so the console trusts it
// only through A2A_EXTRA_CA_CERTS, as a team with a private CA does.
//
// One client (client_secret_post, authorization code, PKCE required), RS256 ID tokens carrying
// `name`. Signing in needs no UI: the interaction page signs in the subject given as
// `?subject=<sub>` (what the Rust tests use), or shows a form with a Subject field (what a
// browser test fills in).
//
// Usage: OP_DIR=<empty dir> OP_REDIRECT_URI=<console>/api/auth/callback node oidc/provider.mjs
//   (OP_CLIENT_ID, OP_CLIENT_SECRET and OP_PORT have defaults). Prints one JSON line
//   {"issuer": "https://127.0.0.1:<port>", "ca": "<OP_DIR>/ca.pem"} once it listens.
//
// `POST /test/rotate-keys` replaces the signing key (and the provider's in-memory state, so
// start a new sign-in after it); with `?publish=stale` the old keys stay published, so the
// new key signs tokens nobody can verify.
import https from "node:https";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import Provider from "oidc-provider";

const {
  OP_DIR,
  OP_PORT = "0",
  OP_CLIENT_ID = "taskbay-test",
  OP_CLIENT_SECRET = "taskbay-test-secret",
  OP_REDIRECT_URI,
} = process.env;
if (!OP_DIR || !OP_REDIRECT_URI) {
  console.error("OP_DIR and OP_REDIRECT_URI are required");
  process.exit(2);
}

// A CA valid for two days and a server certificate for 127.0.0.1 signed by it.
const file = (name) => join(OP_DIR, name);
const openssl = (...args) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "2", "-keyout", file("ca.key"),
  "-out", file("ca.pem"), "-subj", "/CN=Agent Taskbay test CA", "-addext", "basicConstraints=critical,CA:TRUE",
  "-addext", "keyUsage=critical,keyCertSign,cRLSign");
openssl("req", "-newkey", "rsa:2048", "-nodes", "-sha256", "-keyout", file("server.key"), "-out", file("server.csr"),
  "-subj", "/CN=127.0.0.1");
writeFileSync(file("server.ext"), ["basicConstraints=critical,CA:FALSE", "keyUsage=critical,digitalSignature,keyEncipherment",
  "extendedKeyUsage=serverAuth", "subjectAltName=IP:127.0.0.1,DNS:localhost"].join("\n") + "\n");
openssl("x509", "-req", "-in", file("server.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key"), "-CAcreateserial",
  "-sha256", "-days", "2", "-extfile", file("server.ext"), "-out", file("server.pem"));

// Bind first, so the issuer carries the real port.
const server = https.createServer({ cert: readFileSync(file("server.pem")), key: readFileSync(file("server.key")) });
await new Promise((resolve) => server.listen(Number(OP_PORT), "127.0.0.1", resolve));
const issuer = `https://127.0.0.1:${server.address().port}`;

// A provider signing with a key of its own (kid `test-rs256-<generation>`): the first one, and
// a new one each time the keys rotate.
let generation = 0;
function makeProvider() {
  generation += 1;
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: "jwk" }), kid: `test-rs256-${generation}`, alg: "RS256", use: "sig" };
  const provider = new Provider(issuer, {
    clients: [{
      client_id: OP_CLIENT_ID,
      client_secret: OP_CLIENT_SECRET,
      token_endpoint_auth_method: "client_secret_post",
      redirect_uris: [OP_REDIRECT_URI],
      response_types: ["code"],
      grant_types: ["authorization_code"],
      id_token_signed_response_alg: "RS256",
    }],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    pkce: { required: () => true },
    enabledJWA: { idTokenSigningAlgValues: ["RS256"] },
    features: { devInteractions: { enabled: false } },
    claims: { openid: ["sub"], profile: ["name"] },
    conformIdTokenClaims: false,
    async findAccount(ctx, sub) {
      return { accountId: sub, async claims() { return { sub, name: `Test user ${sub}` }; } };
    },
  });

  // Signs `subject` in and grants the requested scopes (login and consent in one step).
  async function finish(ctx, subject) {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: subject, clientId: details.params.client_id });
    grant.addOIDCScope(details.params.scope ?? "openid");
    const grantId = await grant.save();
    await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: subject }, consent: { grantId } },
      { mergeWithLastSubmission: false });
  }

  provider.use(async (ctx, next) => {
    const match = ctx.path.match(/^\/interaction\/([^/]+)(\/login)?$/);
    if (!match) return next();
    ctx.set("cache-control", "no-store");
    if (ctx.method === "GET" && !match[2]) {
      const { uid } = await provider.interactionDetails(ctx.req, ctx.res);
      if (ctx.query.subject) return finish(ctx, String(ctx.query.subject));
      ctx.type = "html";
      ctx.body = `<!doctype html><title>Test provider sign-in</title>
  <form method="post" action="/interaction/${escape(uid)}/login">
    <label>Subject <input name="subject" autofocus></label>
    <button type="submit">Sign in</button>
  </form>`;
      return undefined;
    }
    if (ctx.method === "POST" && match[2]) {
      let body = "";
      for await (const chunk of ctx.req) body += chunk;
      const subject = new URLSearchParams(body).get("subject");
      if (!subject) {
        ctx.status = 400;
        ctx.body = "subject required";
        return undefined;
      }
      return finish(ctx, subject);
    }
    return next();
  });
  return provider;
}

const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

let provider = makeProvider();
let handler = provider.callback();
// After a rotation with `?publish=stale`, the previous provider still answers for the keys: ID
// tokens are then signed with a key the provider does not publish (a forged token, as the
// console sees it).
let staleKeys = null;

server.on("request", (req, res) => {
  if (req.method === "POST" && req.url.startsWith("/test/rotate-keys")) {
    const previous = handler;
    provider = makeProvider();
    handler = provider.callback();
    staleKeys = req.url.includes("publish=stale") ? previous : null;
    res.writeHead(204).end();
    return;
  }
  if (staleKeys && req.method === "GET" && req.url.startsWith("/jwks")) {
    staleKeys(req, res);
    return;
  }
  handler(req, res);
});
console.log(JSON.stringify({ issuer, ca: file("ca.pem") }));
