// The floor under the fan-out rows (issue #33): CLIENTS HTTP/1.1 keep-alive connections that each
// made one `GET /healthz` (public: no identity read, no live stream) and stay open. Reports the
// server's RSS before and after, and the cost per connection: what hyper and the kernel's side
// of a connection cost before the console does anything with it.
// Usage: node idle.mjs <base url> <server pid> [clients]
import http from "node:http";
import { readFileSync } from "node:fs";

const [base, pidText, clientsText] = process.argv.slice(2);
const pid = Number(pidText);
const CLIENTS = Number(clientsText ?? 10000);
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;

const before = rss();
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: Infinity });
let answered = 0;
let failed = 0;
await new Promise((resolve) => {
  const done = () => { if (answered + failed === CLIENTS) resolve(); };
  for (let i = 0; i < CLIENTS; i++) {
    http.get(`${base}/healthz`, { agent }, (res) => {
      res.resume();
      res.on("end", () => { answered++; done(); });
    }).on("error", () => { failed++; done(); });
  }
});
// Let the server settle with every connection idle.
await new Promise((resolve) => setTimeout(resolve, 2000));
const open = Object.values(agent.freeSockets).reduce((sum, sockets) => sum + sockets.length, 0);
const after = rss();
console.log(`| ${CLIENTS} idle keep-alive connections (\`GET /healthz\`) | ${open} open | ${before.toFixed(0)} MB | ${after.toFixed(0)} MB | +${(after - before).toFixed(0)} MB | ${((after - before) * 1024 / Math.max(open, 1)).toFixed(1)} KB each |`);
agent.destroy();
// Let the closed connections go before whatever runs next measures its baseline.
await new Promise((resolve) => setTimeout(resolve, 2000));
process.exit(failed ? 1 : 0);
