//! The values a lane's registers hold while the importer runs it: integers, addresses it
//! can name (a shared variable, a parameter, a pointer loaded from a parameter, tensor
//! memory), values derived from an address by arithmetic it cannot follow exactly, and
//! unknown values.

/// What an address points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Base {
    /// Shared variable `sym` (index into the import's shared symbols); `cta` is the
    /// cluster rank a `mapa` named, `None` for the executing CTA's own window.
    Shared { sym: u32, cta: Option<u32> },
    /// The kernel parameter `idx` itself, in the parameter state space.
    Param { idx: u32 },
    /// The pointer loaded from parameter `idx` at byte `field`.
    ParamPtr { idx: u32, field: i64 },
    /// A module `.global` variable.
    GlobalVar { idx: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Addr {
    pub base: Base,
    pub off: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Val {
    Known(i64),
    Addr(Addr),
    /// Computed from an address by arithmetic the importer does not follow (a swizzle, a
    /// descriptor): it points somewhere in the object holding that address.
    Derived(Addr),
    Unknown,
}

impl Val {
    pub fn known(self) -> Option<i64> {
        match self {
            Val::Known(v) => Some(v),
            _ => None,
        }
    }

    /// The address this value was computed from, exactly or not.
    pub fn origin(self) -> Option<Addr> {
        match self {
            Val::Addr(a) | Val::Derived(a) => Some(a),
            _ => None,
        }
    }
}

/// Bit width and signedness of a PTX type suffix (`.u32` → (32, false)).
pub fn type_of(op: &str) -> (u32, bool) {
    for part in op.split('.').rev() {
        let (signed, digits) = match part.as_bytes().first() {
            Some(b's') => (true, &part[1..]),
            Some(b'u' | b'b' | b'f') => (false, &part[1..]),
            _ => continue,
        };
        if let Ok(bits @ (8 | 16 | 32 | 64)) = digits.parse::<u32>() {
            return (bits, signed);
        }
    }
    if op.contains(".pred") {
        return (1, false);
    }
    (64, false)
}

/// `v` cut to `bits` bits, sign- or zero-extended back to 64.
pub fn wrap(v: i64, bits: u32, signed: bool) -> i64 {
    if bits >= 64 {
        return v;
    }
    let shift = 64 - bits;
    if signed {
        (v << shift) >> shift
    } else {
        ((v as u64) << shift >> shift) as i64
    }
}
