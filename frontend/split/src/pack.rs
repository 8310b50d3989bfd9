//! A screen's wasm files in one file (ADR 0019).
//!
//! A screen hydrates once its own file and the shared chunks it loads are there, four to eleven
//! files besides the main module. Over HTTP/1.1 the browser fetches six at a time from one
//! origin, so preloading them one by one queues them behind the page's other files. After
//! `wasm-opt`, `wasm-split pack <pkg dir>` writes, for every screen that needs more than one
//! file, `pack_<split>.wasm`: an empty wasm module with one custom section per file, named after
//! the file, holding its bytes. It then writes `__wasm_split_preloads.json`, the split manifest
//! with each packed screen's files replaced by its pack, which the server reads to preload a
//! page's wasm (`app/src/boot.rs`). The split loader takes a chunk from a preloaded pack and
//! fetches the file itself when no pack holds it (`vendor/wasm_split_cli_support`, `split_wasm.js`).
//!
//! A pack is a valid wasm module, so it is served, compressed and cached like the other `.wasm`
//! files; nothing runs it. Views loaded after hydration (ADR 0015) are not packed: a page that
//! shows one preloads its files one by one, and hydration does not wait for them.

use std::collections::BTreeMap;
use std::path::Path;

/// The split manifest the splitter writes: split name → the files (stems) it loads.
pub const MANIFEST: &str = "__wasm_split_manifest.json";
/// The same, with each packed screen's files replaced by its pack: what the server preloads.
pub const PRELOADS: &str = "__wasm_split_preloads.json";
/// The wasm magic number and version 1.
const HEADER: &[u8; 8] = b"\0asm\x01\0\0\0";
/// A custom section's id.
const CUSTOM_SECTION: u8 = 0;

/// The pack's stem for a split (`agents_123` → `pack_agents_123`); the loader finds a page's
/// packs among its preload links by this prefix.
pub fn pack_stem(split: &str) -> String {
    format!("pack_{}", split.trim_start_matches('_'))
}

/// A pack holding `files` (file name, bytes), in that order.
pub fn pack(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let size = files
        .iter()
        .map(|(name, bytes)| name.len() + bytes.len() + 16)
        .sum::<usize>();
    let mut out = Vec::with_capacity(HEADER.len() + size);
    out.extend_from_slice(HEADER);
    for (name, bytes) in files {
        let mut name_field = Vec::with_capacity(name.len() + 5);
        write_leb128(&mut name_field, name.len());
        name_field.extend_from_slice(name.as_bytes());
        out.push(CUSTOM_SECTION);
        write_leb128(&mut out, name_field.len() + bytes.len());
        out.extend_from_slice(&name_field);
        out.extend_from_slice(bytes);
    }
    out
}

/// The files in a pack, read by `wasmparser` (a reader independent of [`pack`]): its custom
/// sections, in order. Anything else in it, or a module that does not parse, is an error. The
/// browser's loader has its own reader (`unpack` in the vendored `split_wasm.js`), which refuses
/// the same things; the Playwright suite feeds it hostile packs.
pub fn unpack(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut files = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        match payload.map_err(|e| e.message().to_owned())? {
            wasmparser::Payload::Version { .. } | wasmparser::Payload::End(_) => {}
            wasmparser::Payload::CustomSection(section) => {
                files.push((section.name().to_owned(), section.data().to_vec()));
            }
            other => return Err(format!("not a pack: {:?}", other.as_section().map(|(id, _)| id))),
        }
    }
    Ok(files)
}

fn write_leb128(out: &mut Vec<u8>, mut value: usize) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// What `pack` did: how many screens were packed, and how many files they were.
#[derive(Debug, PartialEq, Eq)]
pub struct Packed {
    pub screens: usize,
    pub files: usize,
}

/// Packs the screens of the split site in `pkg` (after `wasm-opt`) and writes [`PRELOADS`].
/// `deferred` tells a view loaded after hydration by its split name: those are not packed.
pub fn run(pkg: &Path, deferred: impl Fn(&str) -> bool) -> Result<Packed, String> {
    let manifest_path = pkg.join(MANIFEST);
    let manifest: BTreeMap<String, Vec<String>> = serde_json::from_str(
        &std::fs::read_to_string(&manifest_path)
            .map_err(|e| format!("cannot read {}: {e}", manifest_path.display()))?,
    )
    .map_err(|e| format!("{} is not a split manifest: {e}", manifest_path.display()))?;
    let mut preloads = BTreeMap::new();
    let mut packed = Packed { screens: 0, files: 0 };
    for (split, stems) in manifest {
        if deferred(&split) || stems.len() < 2 {
            preloads.insert(split, stems);
            continue;
        }
        let files = stems
            .iter()
            .map(|stem| {
                let name = format!("{stem}.wasm");
                let path = pkg.join(&name);
                std::fs::read(&path)
                    .map(|bytes| (name, bytes))
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let stem = pack_stem(&split);
        let path = pkg.join(format!("{stem}.wasm"));
        let bytes = pack(&files);
        // A pack that would not read back as its files fails the build, not every page load.
        let read_back = unpack(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        if read_back != files {
            return Err(format!("{} does not read back as its files", path.display()));
        }
        std::fs::write(&path, &bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        packed.screens += 1;
        packed.files += files.len();
        preloads.insert(split, vec![stem]);
    }
    let json = serde_json::to_string_pretty(&preloads).map_err(|e| e.to_string())?;
    std::fs::write(pkg.join(PRELOADS), json).map_err(|e| format!("cannot write {PRELOADS}: {e}"))?;
    Ok(packed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(function_body: u8) -> Vec<u8> {
        // A real module: one type, one function returning a constant.
        let mut bytes = HEADER.to_vec();
        bytes.extend_from_slice(&[1, 5, 1, 0x60, 0, 1, 0x7f]); // type section: () -> i32
        bytes.extend_from_slice(&[3, 2, 1, 0]); // function section
        bytes.extend_from_slice(&[10, 6, 1, 4, 0, 0x41, function_body, 0x0b]); // code: i32.const n
        bytes
    }

    #[test]
    fn a_pack_is_a_valid_wasm_module_whose_custom_sections_are_its_files() {
        let files = vec![
            ("chunk_3.wasm".to_owned(), module(7)),
            ("split_agents_42.wasm".to_owned(), vec![0xff; 300]),
            ("chunk_0.wasm".to_owned(), Vec::new()),
        ];
        let bytes = pack(&files);
        wasmparser::Validator::new()
            .validate_all(&bytes)
            .expect("a pack validates as wasm");
        // In order, byte for byte.
        assert_eq!(unpack(&bytes).unwrap(), files);
    }

    #[test]
    fn lengths_of_several_leb128_bytes_round_trip() {
        let files = vec![
            ("big.wasm".to_owned(), vec![1; 70_000]),
            ("n".repeat(200), vec![2; 128]),
        ];
        assert_eq!(unpack(&pack(&files)).unwrap(), files);
    }

    #[test]
    fn what_is_not_a_pack_does_not_read_as_one() {
        // The build's read-back check rests on this; the browser's reader is tested with
        // hostile packs in the Playwright suite (`shell.spec.ts`).
        let good = pack(&[("a.wasm".to_owned(), vec![9; 40])]);
        assert!(unpack(b"PK\x03\x04 not wasm").is_err());
        assert!(unpack(&good[..good.len() - 1]).is_err());
        assert!(unpack(&module(1)).unwrap_err().starts_with("not a pack"));
        assert!(unpack(HEADER).unwrap().is_empty());
    }

    #[test]
    fn screens_are_packed_and_the_preloads_name_their_packs() {
        let pkg = std::env::temp_dir().join(format!("wasm-split-pack-{}", std::process::id()));
        std::fs::create_dir_all(&pkg).unwrap();
        for (stem, n) in [
            ("chunk_1", 1),
            ("chunk_2", 2),
            ("split_tasks_9", 3),
            ("split_parts_split_5", 4),
            ("split_flows_8", 5),
        ] {
            std::fs::write(pkg.join(format!("{stem}.wasm")), module(n)).unwrap();
        }
        let manifest = r#"{
            "tasks_9": ["chunk_1", "chunk_2", "split_tasks_9"],
            "parts_split_5": ["chunk_2", "split_parts_split_5"],
            "flows_8": ["split_flows_8"]
        }"#;
        std::fs::write(pkg.join(MANIFEST), manifest).unwrap();

        let packed = run(&pkg, |split| split.ends_with("_split_5")).unwrap();
        assert_eq!(packed, Packed { screens: 1, files: 3 });
        let preloads: BTreeMap<String, Vec<String>> =
            serde_json::from_str(&std::fs::read_to_string(pkg.join(PRELOADS)).unwrap()).unwrap();
        assert_eq!(preloads["tasks_9"], ["pack_tasks_9"]);
        // A view loaded after hydration, and a screen of one file, keep their files.
        assert_eq!(preloads["parts_split_5"], ["chunk_2", "split_parts_split_5"]);
        assert_eq!(preloads["flows_8"], ["split_flows_8"]);
        assert!(!pkg.join("pack_flows_8.wasm").exists());
        let pack = std::fs::read(pkg.join("pack_tasks_9.wasm")).unwrap();
        let files = unpack(&pack).unwrap();
        assert_eq!(
            files.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(),
            ["chunk_1.wasm", "chunk_2.wasm", "split_tasks_9.wasm"]
        );
        assert_eq!(files[2].1, std::fs::read(pkg.join("split_tasks_9.wasm")).unwrap());

        // A file the manifest names but the directory lacks is an error, not a smaller pack.
        std::fs::remove_file(pkg.join("chunk_1.wasm")).unwrap();
        let error = run(&pkg, |_| false).unwrap_err();
        assert!(
            error.starts_with("cannot read ") && error.contains("chunk_1.wasm"),
            "{error}"
        );
        std::fs::remove_dir_all(&pkg).unwrap();
    }
}
