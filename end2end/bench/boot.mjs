// What the page-load benchmarks share: the init script that reports when a page hydrated,
// and the median they quote.

// Runs in each page before its own scripts: says "hydrated <ms>" once the mark is set and,
// with BENCH_PHASES, records when WebAssembly's compile and instantiate calls start and end.
export const probe = (phases) => {
  const log = (window.__boot = []);
  const at = (what) => log.push([what, performance.now()]);
  if (phases) {
    for (const [name, label] of [["compileStreaming", "compile"], ["instantiate", "instantiate"], ["instantiateStreaming", "instantiateStreaming"]]) {
      const original = WebAssembly[name];
      WebAssembly[name] = function (...args) {
        at(`${label} start`);
        return original.apply(this, args).then((value) => (at(`${label} end`), value));
      };
    }
    document.addEventListener("DOMContentLoaded", () => at("DOMContentLoaded"));
  }
  new MutationObserver((_, observer) => {
    if (document.body?.dataset.hydrated !== "true") return;
    observer.disconnect();
    console.log(`hydrated ${performance.now()}`);
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-hydrated"] });
};

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
