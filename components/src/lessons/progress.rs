//! Learner progress: which exercises passed and how many hints were revealed, kept in
//! localStorage and exportable as a JSON file. Imported files are untrusted: they are
//! validated whole, and a bad one changes nothing.

use std::collections::BTreeMap;

use leptos::prelude::*;

use super::json::{self, Json};

const STORAGE_KEY: &str = "fencelab-progress";
const FORMAT: &str = "fencelab-progress";
const VERSION: u32 = 1;
/// Larger than any real progress file; refuses pastes of unrelated big files quickly.
pub const MAX_IMPORT_BYTES: usize = 256 * 1024;
/// No exercise has this many hints; a larger count means the file was not ours.
const MAX_HINTS: u32 = 64;

/// One exercise's record, keyed `lesson-id/exercise-id`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExerciseProgress {
    pub passed: bool,
    pub hints: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    format: String,
    version: u32,
    exercises: BTreeMap<String, ExerciseProgress>,
}

impl Default for Progress {
    fn default() -> Self {
        Progress { format: FORMAT.into(), version: VERSION, exercises: BTreeMap::new() }
    }
}

impl Progress {
    pub fn key(lesson: &str, exercise: &str) -> String {
        format!("{lesson}/{exercise}")
    }

    pub fn get(&self, key: &str) -> ExerciseProgress {
        self.exercises.get(key).copied().unwrap_or_default()
    }

    pub fn mark_passed(&mut self, key: &str) {
        self.exercises.entry(key.to_string()).or_default().passed = true;
    }

    /// Records that `shown` hints are visible (never fewer than before).
    pub fn reveal_hints(&mut self, key: &str, shown: u32) {
        let entry = self.exercises.entry(key.to_string()).or_default();
        entry.hints = entry.hints.max(shown);
    }

    /// The export file: the format serde_json's pretty printer wrote before, so files
    /// exported by earlier versions and by this one look alike.
    pub fn to_json(&self) -> String {
        let mut out = format!("{{\n  \"format\": {},\n  \"version\": {},\n  \"exercises\": {{", json::quoted(&self.format), self.version);
        for (index, (key, record)) in self.exercises.iter().enumerate() {
            out.push_str(if index == 0 { "\n" } else { ",\n" });
            out.push_str(&format!(
                "    {}: {{\n      \"passed\": {},\n      \"hints\": {}\n    }}",
                json::quoted(key),
                record.passed,
                record.hints
            ));
        }
        out.push_str(if self.exercises.is_empty() { "}\n}" } else { "\n  }\n}" });
        out
    }

    /// Reads an exported file, or says what is wrong with it.
    pub fn from_json(text: &str) -> Result<Progress, String> {
        if text.len() > MAX_IMPORT_BYTES {
            return Err(format!("the file is {} bytes; a progress file is at most {MAX_IMPORT_BYTES}", text.len()));
        }
        let progress = json::parse(text)
            .and_then(|value| Progress::from_value(&value))
            .map_err(|e| format!("this is not a fencelab progress file ({e})"))?;
        if progress.format != FORMAT {
            return Err(format!("this is not a fencelab progress file (`format` is `{}`)", progress.format));
        }
        if progress.version != VERSION {
            return Err(format!(
                "this progress file has version {}; this fencelab reads version {VERSION}",
                progress.version
            ));
        }
        for (key, record) in &progress.exercises {
            if !is_valid_key(key) {
                return Err(format!("`{key}` is not an exercise key (`lesson-id/exercise-id`)"));
            }
            if record.hints > MAX_HINTS {
                return Err(format!("`{key}` claims {} hints; no exercise has more than {MAX_HINTS}", record.hints));
            }
        }
        Ok(progress)
    }
}

impl Progress {
    /// The file's shape: exactly these fields, of these types.
    fn from_value(value: &Json) -> Result<Progress, String> {
        let [format, version, exercises] = fields(value, ["format", "version", "exercises"])?;
        let Json::Object(records) = exercises else { return Err("`exercises` is not an object".into()) };
        let mut progress = Progress { format: text(format, "format")?, version: number(version, "version")?, exercises: BTreeMap::new() };
        for (key, record) in records {
            let [passed, hints] = fields(record, ["passed", "hints"])?;
            let Json::Bool(passed) = *passed else { return Err(format!("`passed` of `{key}` is not true or false")) };
            let record = ExerciseProgress { passed, hints: number(hints, "hints")? };
            if progress.exercises.insert(key.clone(), record).is_some() {
                return Err(format!("`{key}` appears twice"));
            }
        }
        Ok(progress)
    }
}

/// The fields `names` of the object `value`, refusing missing, repeated and unknown ones.
fn fields<'v, const N: usize>(value: &'v Json, names: [&str; N]) -> Result<[&'v Json; N], String> {
    let Json::Object(entries) = value else { return Err("expected an object".into()) };
    let mut found: [Option<&Json>; N] = [None; N];
    for (key, field) in entries {
        let slot = names.iter().position(|name| name == key).ok_or_else(|| format!("unknown field `{key}`"))?;
        if found[slot].replace(field).is_some() {
            return Err(format!("duplicate field `{key}`"));
        }
    }
    let mut out = [&Json::Null; N];
    for (slot, name) in names.iter().enumerate() {
        out[slot] = found[slot].ok_or_else(|| format!("missing field `{name}`"))?;
    }
    Ok(out)
}

fn text(value: &Json, name: &str) -> Result<String, String> {
    match value {
        Json::Text(text) => Ok(text.clone()),
        _ => Err(format!("`{name}` is not a string")),
    }
}

fn number(value: &Json, name: &str) -> Result<u32, String> {
    match value {
        Json::Number(digits) => digits.parse().map_err(|_| format!("`{name}` is not a whole number below 2^32")),
        _ => Err(format!("`{name}` is not a number")),
    }
}

fn is_valid_key(key: &str) -> bool {
    let id = |s: &str| !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    key.split_once('/').is_some_and(|(lesson, exercise)| id(lesson) && id(exercise))
}

/// Progress shared by the lessons screens.
#[derive(Clone, Copy)]
pub struct ProgressState(pub RwSignal<Progress>);

/// Loads progress from localStorage and saves every change back.
pub fn provide_progress() {
    let progress = RwSignal::new(load());
    Effect::new(move |_| progress.with(save));
    provide_context(ProgressState(progress));
}

pub fn use_progress() -> RwSignal<Progress> {
    use_context::<ProgressState>().map(|p| p.0).unwrap_or_else(|| RwSignal::new(Progress::default()))
}

fn load() -> Progress {
    // A damaged entry is ignored rather than shown: the learner did not write it by hand.
    crate::storage::get(STORAGE_KEY)
        .and_then(|text| Progress::from_json(&text).ok())
        .unwrap_or_default()
}

fn save(progress: &Progress) {
    crate::storage::set(STORAGE_KEY, &progress.to_json());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_then_import_round_trips() {
        let mut progress = Progress::default();
        progress.mark_passed("scopes/widen");
        progress.reveal_hints("scopes/widen", 2);
        progress.reveal_hints("scopes/widen", 1);
        let exported = progress.to_json();
        assert!(exported.contains("\"scopes/widen\": {\n      \"passed\": true,\n      \"hints\": 2\n    }"), "{exported}");
        let back = Progress::from_json(&exported).expect("own export imports");
        assert_eq!(back, progress);
        assert_eq!(back.get("scopes/widen"), ExerciseProgress { passed: true, hints: 2 });
        assert_eq!(back.get("other/x"), ExerciseProgress::default());
    }

    #[test]
    fn bad_files_are_refused_with_a_reason() {
        let cases = [
            ("not json", "not a fencelab progress file"),
            (r#"{"format":"other","version":1,"exercises":{}}"#, "`format` is `other`"),
            (r#"{"format":"fencelab-progress","version":9,"exercises":{}}"#, "version 9"),
            (r#"{"format":"fencelab-progress","version":1,"exercises":{"<b>":{"passed":true,"hints":0}}}"#, "not an exercise key"),
            (r#"{"format":"fencelab-progress","version":1,"exercises":{"a/b":{"passed":true,"hints":999}}}"#, "999 hints"),
            (r#"{"format":"fencelab-progress","version":1,"exercises":{},"extra":1}"#, "unknown field `extra`"),
            (r#"{"format":"fencelab-progress","version":1}"#, "missing field `exercises`"),
            (r#"{"format":"fencelab-progress","version":1,"version":1,"exercises":{}}"#, "duplicate field `version`"),
            (r#"{"format":"fencelab-progress","version":-1,"exercises":{}}"#, "`version` is not a whole number"),
            (r#"{"format":"fencelab-progress","version":1,"exercises":{"a/b":{"passed":1,"hints":0}}}"#, "`passed` of `a/b`"),
            (r#"{"format":"fencelab-progress","version":1,"exercises":{"a/b":{"passed":true}}}"#, "missing field `hints`"),
            (r#"{"format":"fencelab-progress","version":1,"exercises":{"a/b":{"passed":true,"hints":0},"a/b":{"passed":true,"hints":0}}}"#, "`a/b` appears twice"),
            (r#"{"format":"fencelab-progress","version":1,"exercises":[]}"#, "`exercises` is not an object"),
        ];
        for (text, expected) in cases {
            let err = Progress::from_json(text).expect_err(text);
            assert!(err.contains(expected), "{text}: {err}");
        }
        assert_eq!(Progress::from_json(&Progress::default().to_json()), Ok(Progress::default()));
        let huge = " ".repeat(MAX_IMPORT_BYTES + 1);
        assert!(Progress::from_json(&huge).is_err());
    }
}
