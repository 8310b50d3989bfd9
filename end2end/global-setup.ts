// Waits until the server under test is ready (GET /readyz answers 200), for up to 120 s.
export default async function globalSetup(): Promise<void> {
  const base = process.env.BASE_URL ?? "http://127.0.0.1:3002";
  const deadline = Date.now() + 120_000;
  let last = "no answer";
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${base}/readyz`);
      if (res.ok) return;
      last = `HTTP ${res.status}: ${await res.text()}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`server at ${base} not ready after 120 s (${last})`);
}
