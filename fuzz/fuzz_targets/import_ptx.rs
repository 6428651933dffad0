//! Fuzzes `fencelab import`'s PTX front end and executor: arbitrary text as PTX, on its own
//! and spliced into the body of a small kernel (so the executor, not only the parser, sees
//! it). Nothing may panic; an imported scenario must load without errors, since the CLI
//! prints it for `fencelab check`.

#![no_main]

use fencelab::import::{import, ImportOptions};
use libfuzzer_sys::fuzz_target;

const FRAME: &str = ".version 9.0\n.target sm_90a\n.address_size 64\n.entry k(.param .u64 p, .param .u32 n)\n.maxntid 64, 1, 1\n.reqnctapercluster 2, 1, 1\n{\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n.reg .pred %p<8>;\n.shared .align 8 .b8 buf[256];\n";

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let options = ImportOptions { iterations: 2, ..ImportOptions::default() };
    for text in [src.to_string(), format!("{FRAME}{src}\nret;\n}}\n")] {
        if let Ok(imported) = import(&text, &options) {
            let loaded = fencelab::load(&imported.text);
            assert!(!loaded.has_errors(), "imported scenario does not load:\n{}", imported.text);
        }
    }
});
