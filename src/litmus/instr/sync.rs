//! Fences and barriers.

use super::{value, Arg, BarrierUse, LitmusInstr};
use crate::litmus::error::LitmusError;
use crate::model::{Fence, FenceSem, Instr, ProxyKind, Scope};

pub(super) fn fence(mods: &[&str], line: usize) -> Result<Instr, LitmusError> {
    if let ["proxy", kind] = mods {
        let kind = match *kind {
            "alias" => ProxyKind::Alias,
            "surface" => ProxyKind::Surface,
            "texture" => ProxyKind::Texture,
            "constant" => ProxyKind::Constant,
            other => {
                return Err(LitmusError::unsupported(
                    Some(line),
                    format!("proxy fence `.{other}`"),
                ))
            }
        };
        return Ok(Instr::Fence(Fence::Proxy(kind)));
    }
    let (mut sem, mut scope) = (None, None);
    for m in mods {
        match *m {
            "sc" => sem = Some(FenceSem::Sc),
            "acq_rel" => sem = Some(FenceSem::AcqRel),
            "acquire" => sem = Some(FenceSem::Acquire),
            "release" => sem = Some(FenceSem::Release),
            "cta" => scope = Some(Scope::Cta),
            "cluster" => scope = Some(Scope::Cluster),
            "gpu" => scope = Some(Scope::Gpu),
            "sys" => scope = Some(Scope::Sys),
            other => {
                return Err(LitmusError::syntax(
                    line,
                    format!("unknown fence modifier `.{other}`"),
                ))
            }
        }
    }
    let scope = scope.ok_or_else(|| LitmusError::syntax(line, "a fence needs a scope"))?;
    let sem = sem.ok_or_else(|| LitmusError::syntax(line, "a fence needs `.sc` or `.acq_rel`"))?;
    Ok(Instr::Fence(Fence::Thread {
        sem: Some(sem),
        scope,
        restrict: None,
        sugar: None,
    }))
}

pub(super) fn barrier(
    mods: &[&str],
    args: &[Arg],
    line: usize,
) -> Result<LitmusInstr, LitmusError> {
    let arrive = match mods {
        ["cta", "sync"] | ["sync"] => false,
        ["cta", "arrive"] | ["arrive"] => true,
        _ => {
            return Err(LitmusError::unsupported(
                Some(line),
                "barrier form other than `bar.cta.sync`/`bar.cta.arrive`",
            ))
        }
    };
    let (instance, resource, quorum) =
        match args {
            [Arg::Num(i)] => (*i, None, None),
            [Arg::Num(i), r] => (*i, Some(value(r, line)?), None),
            [Arg::Num(i), r, q] => (*i, Some(value(r, line)?), Some(value(q, line)?)),
            _ => return Err(LitmusError::syntax(
                line,
                "expected `bar.cta.sync instance{, resource{, quorum}}` with a constant instance",
            )),
        };
    Ok(LitmusInstr::Barrier(BarrierUse {
        arrive,
        instance,
        resource,
        quorum,
    }))
}
