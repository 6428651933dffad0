//! The instruction forms the `.fence` language accepts, once, each with the PTX ISA
//! section that defines it (PTX ISA 9.1 numbering, as in the reference; chapter 9 numbers
//! move between ISA versions). A form is an opcode with the modifiers fencelab models, as
//! the printer writes it. Type suffixes (`.b32`, `.b64`), shapes, cache hints, the sink `_`
//! of an mbarrier arrive and operands fencelab does not model are left out of canonical text
//! and are not part of a form.
//!
//! Patterns: `{a|b}` picks one alternative (an empty one makes the group optional), groups
//! nest, and `$SCOPE`/`$SPACE`/`$OP`/`$GROUP` stand for the usual modifier sets.

/// Where a form comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A PTX instruction form.
    Ptx,
    /// Another spelling of PTX: CUDA C++ (`__syncthreads()`), `membar`, or fencelab's
    /// shorthand for a PTX idiom (`wait` for a retry loop, `beq` for `setp` + `@p bra`).
    Spelling,
    /// Not PTX: kept because Dat3M's PTX litmus tests use it (the 2022 proxy model's
    /// texture, surface and constant proxies). The verifier warns where a user writes one.
    ModelOnly,
    /// Not PTX, accepted only so a lesson can show the undefined behaviour it is (a wait on
    /// another CTA's mbarrier, ref §10 #7); the verifier reports it (F0320).
    Undefined,
}

/// One row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    pub pattern: &'static str,
    /// The PTX ISA section (9.1 numbering) that defines it, or what it stands for.
    pub isa: &'static str,
    pub origin: Origin,
}

const fn ptx(pattern: &'static str, isa: &'static str) -> Form {
    Form { pattern, isa, origin: Origin::Ptx }
}

const fn spelling(pattern: &'static str, isa: &'static str) -> Form {
    Form { pattern, isa, origin: Origin::Spelling }
}

const fn undefined(pattern: &'static str, isa: &'static str) -> Form {
    Form { pattern, isa, origin: Origin::Undefined }
}

const fn model_only(pattern: &'static str, isa: &'static str) -> Form {
    Form { pattern, isa, origin: Origin::ModelOnly }
}

const MACROS: &[(&str, &str)] = &[
    ("$SCOPE", "{.cta|.cluster|.gpu|.sys}"),
    ("$SPACE", "{|.global|.shared::cta|.shared::cluster}"),
    ("$OP", "{.add|.inc|.dec|.exch|.max|.min|.and|.or|.xor}"),
    ("$GROUP", "{.cta_group::1|.cta_group::2}"),
];

/// Every form the parser accepts and the printer writes.
pub const FORMS: &[Form] = &[
    // Memory (§9.7.9.8 ld, §9.7.9.11 st, §9.7.13.5 atom, §9.7.13.6 red).
    ptx("ld{|.weak|.volatile|.relaxed$SCOPE|.acquire$SCOPE}$SPACE", "§9.7.9.8 ld"),
    ptx("ld.mmio.relaxed.sys{|.global}", "§9.7.9.8 ld"),
    ptx("ld{|.weak|.volatile|.relaxed$SCOPE|.acquire$SCOPE}.const", "§9.7.9.8 ld (.const state space)"),
    ptx("st{|.weak|.volatile|.relaxed$SCOPE|.release$SCOPE}$SPACE", "§9.7.9.11 st"),
    ptx("st.mmio.relaxed.sys{|.global}", "§9.7.9.11 st"),
    ptx("atom{|.relaxed|.acquire|.release|.acq_rel}{|$SCOPE}$SPACE{$OP|.cas}", "§9.7.13.5 atom"),
    ptx("red{|.relaxed|.release}{|$SCOPE}$SPACE$OP", "§9.7.13.6 red"),
    ptx("suld", "§9.7.11 suld (surface instructions)"),
    ptx("sust", "§9.7.11 sust (surface instructions)"),
    model_only("tld", "none: Dat3M's texture load; PTX reads textures with `tex`/`tld4` (§9.7.10 texture instructions)"),
    // Fences (§9.7.13.4 membar/fence).
    ptx("fence{|.sc|.acq_rel|.acquire|.release}$SCOPE", "§9.7.13.4 fence"),
    ptx("fence.release.sync_restrict::shared::cta.cluster", "§9.7.13.4 fence (restricted)"),
    ptx("fence.acquire.sync_restrict::shared::cluster.cluster", "§9.7.13.4 fence (restricted)"),
    ptx("fence.mbarrier_init.release.cluster", "§9.7.13.4 fence (op_restrict)"),
    ptx("fence.proxy.alias", "§9.7.13.4 fence.proxy"),
    ptx("fence.proxy.async{|.global|.shared::cta|.shared::cluster}", "§9.7.13.4 fence.proxy"),
    ptx("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster", "§9.7.13.4 fence.proxy (uni-directional)"),
    ptx("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster", "§9.7.13.4 fence.proxy (uni-directional)"),
    ptx("fence.proxy.tensormap::generic{.release|.acquire}$SCOPE", "§9.7.13.4 fence.proxy (tensormap; the acquire's `[addr], 128` is not modelled)"),
    model_only("fence.proxy{.texture|.surface|.constant}", "none: Dat3M's proxy fences; PTX's proxy kinds are alias, async and tensormap (§9.7.13.4)"),
    spelling("membar{.cta|.gl|.sys}", "§9.7.13.4 membar (= fence.sc on sm_70+)"),
    spelling("__threadfence()", "CUDA C++ for fence.sc.gpu"),
    spelling("__threadfence_block()", "CUDA C++ for fence.sc.cta"),
    // Barriers (§9.7.13.1 bar/barrier, §9.7.13.3 barrier.cluster).
    ptx("bar{.sync|.arrive|.red}", "§9.7.13.1 bar (bar.red's operation and predicate are not modelled)"),
    spelling("__syncthreads()", "CUDA C++ for bar.sync 0"),
    ptx("barrier.cluster.arrive{|.release|.relaxed}", "§9.7.13.3 barrier.cluster"),
    ptx("barrier.cluster.wait", "§9.7.13.3 barrier.cluster"),
    // mbarrier (§9.7.13.15).
    ptx("mbarrier.init{|.shared::cta}", "§9.7.13.15.9 mbarrier.init"),
    ptx("mbarrier.inval{|.shared::cta}", "§9.7.13.15.10 mbarrier.inval"),
    ptx("mbarrier{.expect_tx|.complete_tx}{|.relaxed{.cta|.cluster}}{|.shared::cta|.shared::cluster}", "§9.7.13.15.11–12 mbarrier.expect_tx/complete_tx"),
    ptx("mbarrier{.arrive|.arrive_drop}{|.expect_tx}{|{.release|.relaxed}{.cta|.cluster}}{|.shared::cta|.shared::cluster}", "§9.7.13.15.13–14 mbarrier.arrive/arrive_drop"),
    ptx("mbarrier{.arrive|.arrive_drop}.noComplete{|.release.cta}{|.shared::cta}", "§9.7.13.15.13–14 mbarrier.arrive{_drop}.noComplete"),
    ptx("mbarrier{.test_wait|.try_wait}{|.parity}{|{.acquire|.relaxed}{.cta|.cluster}}{|.shared::cta}", "§9.7.13.15.16 mbarrier.test_wait/try_wait"),
    undefined("mbarrier{.test_wait|.try_wait}{|.parity}{|{.acquire|.relaxed}{.cta|.cluster}}.shared::cluster", "none: waits take `.shared::cta` only (§9.7.13.15.16); a peer's barrier cannot be waited on (§9.7.13.15.8)"),
    ptx("mbarrier.pending_count", "§9.7.13.15.17 mbarrier.pending_count"),
    ptx("cp.async.mbarrier.arrive{|.noinc}{|.shared::cta}", "§9.7.13.15.15 cp.async.mbarrier.arrive"),
    // Asynchronous copies (§9.7.9.25).
    ptx("cp.async.ca.shared::cta.global", "§9.7.9.25.3.1 cp.async"),
    ptx("cp.async.commit_group", "§9.7.9.25.3.2 cp.async.commit_group"),
    ptx("cp.async{.wait_group|.wait_all}", "§9.7.9.25.3.3 cp.async.wait_group"),
    ptx("cp.async.bulk{|.tensor}{.shared::cta.global|.shared::cluster.global|.shared::cluster.shared::cta}.mbarrier::complete_tx::bytes", "§9.7.9.25.4.1 cp.async.bulk"),
    ptx("cp.async.bulk{|.tensor}.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster", "§9.7.9.25.4.1 cp.async.bulk (multicast; ctaMask as `(dst, bar)` pairs)"),
    ptx("cp.async.bulk.tensor.shared::cluster.global.mbarrier::complete_tx::bytes{|.multicast::cluster}.cta_group::2", "§9.7.9.27.1.2 cp.async.bulk.tensor (cta_group::2)"),
    ptx("cp.async.bulk{|.tensor}.global.shared::cta.bulk_group", "§9.7.9.25.4.1 cp.async.bulk"),
    ptx("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes$OP", "§9.7.9.25.4.2 cp.reduce.async.bulk"),
    ptx("cp.reduce.async.bulk{|.tensor}.global.shared::cta.bulk_group$OP", "§9.7.9.25.4.2 cp.reduce.async.bulk"),
    ptx("cp.async.bulk.commit_group", "§9.7.9.27.2.1 cp.async.bulk.commit_group"),
    ptx("cp.async.bulk.wait_group{|.read}", "§9.7.9.27.2.2 cp.async.bulk.wait_group"),
    ptx("st.async.shared::cluster.mbarrier::complete_tx::bytes", "§9.7.9.12 st.async (.weak is the default)"),
    ptx("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes{.add|.inc|.dec|.max|.min|.and|.or|.xor}", "§9.7.13.7 red.async"),
    // wgmma (§9.7.15).
    ptx("wgmma.fence.sync.aligned", "§9.7.15.7.1 wgmma.fence"),
    ptx("wgmma.mma_async.sync.aligned", "§9.7.15.5.2 wgmma.mma_async (shape and types not modelled)"),
    ptx("wgmma.commit_group.sync.aligned", "§9.7.15.7.2 wgmma.commit_group"),
    ptx("wgmma.wait_group.sync.aligned", "§9.7.15.7.3 wgmma.wait_group"),
    // tcgen05 (§9.7.16).
    ptx("tcgen05{.alloc|.dealloc|.relinquish_alloc_permit}$GROUP.sync.aligned", "§9.7.16.7.1 tcgen05.alloc/dealloc/relinquish_alloc_permit"),
    ptx("tcgen05.mma$GROUP", "§9.7.16 tcgen05.mma (descriptors, kind and shape not modelled)"),
    ptx("tcgen05.cp$GROUP", "§9.7.16 tcgen05.cp (shape not modelled)"),
    ptx("tcgen05.shift$GROUP.down", "§9.7.16 tcgen05.shift"),
    ptx("tcgen05{.ld|.st}.sync.aligned", "§9.7.16.8 tcgen05.ld/st (shape and count not modelled)"),
    ptx("tcgen05.commit$GROUP.mbarrier::arrive::one{|.multicast::cluster}", "§9.7.16.12.1 tcgen05.commit (ctaMask as barrier list)"),
    ptx("tcgen05{.wait::ld|.wait::st}.sync.aligned", "§9.7.16.8.5 tcgen05.wait"),
    ptx("tcgen05{.fence::before_thread_sync|.fence::after_thread_sync}", "§9.7.16.11.1 tcgen05.fence"),
    // Control flow and registers (§9.7.12 control flow, §9.7.1 integer arithmetic).
    ptx("bra", "§9.7.12.3 bra"),
    spelling("{beq|bne|blt|ble|bgt|bge}", "litmus spelling of setp + @p bra (§9.7.12.3)"),
    ptx("mov", "§9.7.9 mov (type not modelled)"),
    ptx("add", "§9.7.1.1 add (type not modelled)"),
    ptx("setp{.eq|.ne|.lt|.le|.gt|.ge}", "§9.7 setp, comparison and selection (type not modelled)"),
    ptx("exit", "§9.7.12.7 exit"),
    spelling("wait", "fencelab's retry loop around an mbarrier wait or a load (`@!p bra` back)"),
];

/// Every opcode word `pattern` stands for.
pub fn expand(pattern: &str) -> Vec<String> {
    let mut text = pattern.to_string();
    for (name, body) in MACROS {
        text = text.replace(name, body);
    }
    alternatives(&text)
}

fn alternatives(text: &str) -> Vec<String> {
    let Some(open) = text.find('{') else { return vec![text.to_string()] };
    let (mut depth, mut close, mut bars) = (0usize, None, Vec::new());
    for (i, ch) in text.char_indices().skip_while(|(i, _)| *i < open) {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            '|' if depth == 1 => bars.push(i),
            _ => {}
        }
    }
    let Some(close) = close else { return vec![text.to_string()] };
    let (head, tail) = (&text[..open], &text[close + 1..]);
    let mut cuts = vec![open];
    cuts.extend(bars);
    cuts.push(close);
    cuts.windows(2)
        .flat_map(|w| alternatives(&format!("{head}{}{tail}", &text[w[0] + 1..w[1]])))
        .collect()
}

/// Every opcode word of the table with its row, built once.
fn words() -> &'static std::collections::HashMap<String, usize> {
    static WORDS: std::sync::OnceLock<std::collections::HashMap<String, usize>> = std::sync::OnceLock::new();
    WORDS.get_or_init(|| {
        let mut map = std::collections::HashMap::new();
        for (row, form) in FORMS.iter().enumerate() {
            for word in expand(form.pattern) {
                map.entry(word).or_insert(row);
            }
        }
        map
    })
}

/// The row whose pattern covers `word`, an opcode word as the printer writes it.
pub fn form_of(word: &str) -> Option<&'static Form> {
    words().get(word).and_then(|&row| FORMS.get(row))
}

/// The PTX forms nearest to `word` among those with its opcode (`mbarrier`, `fence`, ...),
/// at most three, for a hint.
pub fn nearest_ptx(word: &str) -> Vec<&'static str> {
    let opcode = |w: &str| w.split('.').next().unwrap_or("").to_string();
    let own = opcode(word);
    // Keep as much of the written prefix (operation, then modifiers) as some form has.
    let prefix = |w: &str| word.split('.').zip(w.split('.')).take_while(|(a, b)| a == b).count();
    let mut scored: Vec<(std::cmp::Reverse<usize>, usize, &'static str)> = words()
        .iter()
        .filter(|(w, &row)| opcode(w) == own && FORMS.get(row).is_some_and(|f| f.origin == Origin::Ptx))
        .map(|(w, _)| (std::cmp::Reverse(prefix(w)), segment_distance(word, w), w.as_str()))
        .collect();
    scored.sort_unstable();
    let best = scored.first().map(|(p, d, _)| (*p, *d));
    scored.into_iter().take_while(|(p, d, _)| Some((*p, *d)) == best).take(3).map(|(_, _, w)| w).collect()
}

/// Edit distance counting whole `.`-segments, so the hint keeps the modifiers written and
/// their order (a copy's direction) and changes as few as it can.
fn segment_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let next = (diagonal + usize::from(x != y)).min(row[j] + 1).min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The opcode words of `instr` as the printer writes them: its first word, under any guard
/// or byte range (which add no `.bN` here); a `wait` gives `wait` and the word it spins
/// on. A label has none.
pub fn opcode_words(instr: &crate::model::Instr) -> Vec<String> {
    use crate::model::Instr;
    match instr.unwrapped() {
        Instr::Label(_) => Vec::new(),
        Instr::Wait { instr, .. } => std::iter::once("wait".to_string()).chain(opcode_words(instr)).collect(),
        core => crate::syntax::instr_text(core).split_whitespace().next().map(str::to_string).into_iter().collect(),
    }
}
