function wrapAsyncCb(callee) {
    return async (callbackIndex, callbackData) => {
        let success;
        try {
            await callee();
            success = true;
        } catch (e) {
            console.error(e);
            success = false;
        } finally {
            const sharedImports = getSharedImports();
            sharedImports.__wasm_split.__indirect_function_table.get(callbackIndex)(callbackData, success);
        }
    }
}
function makeLoad(fetcher, deps) {
    const loader = async () => {
        const parallelStuff = deps.map(d => d());
        const instantiate = fetcher();
        await Promise.all(parallelStuff);
        const imports = getSharedImports();
        return instantiate(imports);
    };
    let loadingModule = undefined;
    return () => {
        if (loadingModule === undefined) {
            const thisLoad = loader();
            // Memoize successes only: a rejected load must not be cached for
            // the lifetime of the session, or one transient network failure
            // permanently breaks the module. Clearing on rejection lets the
            // next call (e.g. the Rust side re-invoking load after a failed
            // callback) start a fresh attempt.
            thisLoad.catch(() => {
                if (loadingModule === thisLoad) loadingModule = undefined;
            });
            loadingModule = thisLoad;
        }
        return loadingModule;
    }
}
// Taskbay: a page preloads its screen's files as one pack, `pack_<split>.wasm` (ADR 0019): an
// empty wasm module whose custom sections are those files, each named after its file. A chunk
// comes from a preloaded pack if one holds it, and is fetched on its own otherwise (a page
// without packs, a view loaded after hydration, a pack that failed to arrive or to parse).
let packedFiles = undefined;
function packed() {
    if (packedFiles === undefined) {
        const links = typeof document === "undefined" ? [] : document.querySelectorAll('link[rel="preload"][href*="/pack_"]');
        packedFiles = Promise.all(Array.from(links, (link) =>
            // The same request as the preload (CORS, same-origin credentials), so it is reused.
            fetch(link.href)
                .then((response) => (response.ok ? response.arrayBuffer() : undefined))
                .then((bytes) => (bytes === undefined ? [] : unpack(new Uint8Array(bytes))))
                .catch(() => [])
        )).then((lists) => new Map(lists.flat()));
    }
    return packedFiles;
}
// The files of a pack as [name, bytes]; none if it is not one (a wrong or truncated file).
function unpack(bytes) {
    const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
    if (bytes.length < 8 || header.some((b, i) => bytes[i] !== b)) return [];
    const files = [];
    const names = new TextDecoder("utf-8", { fatal: true });
    let at = 8;
    const leb = (end) => {
        let value = 0;
        for (let scale = 1; at < end && scale < 2 ** 35; scale *= 128) {
            const byte = bytes[at++];
            value += (byte & 0x7f) * scale;
            if ((byte & 0x80) === 0) return value;
        }
        return -1;
    };
    try {
        while (at < bytes.length) {
            const id = bytes[at++];
            const size = leb(bytes.length);
            const end = at + size;
            if (id !== 0 || size < 0 || end > bytes.length) return [];
            const length = leb(end);
            if (length < 0 || at + length > end) return [];
            files.push([names.decode(bytes.subarray(at, at + length)), bytes.subarray(at + length, end)]);
            at = end;
        }
    } catch (e) {
        return [];
    }
    return files;
}
// A Response with the chunk at `url`: from a pack (each packed file is handed out once; a retry
// after a failed instantiation fetches the file), else from the network.
async function fetchChunk(url) {
    const files = await packed();
    const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
    const bytes = files.get(name);
    if (bytes === undefined) return fetch(url);
    files.delete(name);
    return new Response(bytes, { headers: { "Content-Type": "application/wasm" } });
}
