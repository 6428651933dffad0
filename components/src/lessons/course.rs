//! The course, fetched on first visit to a lessons page (`lessons/` is copied next to the
//! app by trunk, so the lesson texts are not in the wasm) and parsed once by the core.

use std::cell::RefCell;
use std::sync::OnceLock;

use fencelab::lesson::{parse_index, parse_lesson, Lesson, LessonError};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::Response;

/// Where the lesson files are served, relative to the page (index.html `copy-dir`).
const LESSONS_URL: &str = "./lessons/";

/// One lesson of the course with whatever its parse reported.
pub struct CourseLesson {
    pub file: String,
    pub lesson: Lesson,
    pub errors: Vec<LessonError>,
}

/// A titled group of lessons, in course order.
pub struct CourseSection {
    pub title: String,
    pub lessons: Vec<CourseLesson>,
}

pub struct Course {
    pub sections: Vec<CourseSection>,
    /// The first lesson's text, as a starting point for the instructor preview.
    sample: String,
}

static COURSE: OnceLock<Course> = OnceLock::new();
static NO_COURSE: Course = Course { sections: Vec::new(), sample: String::new() };

thread_local! {
    /// The bundle's fetch, begun with the route (`begin_fetching`) while the lessons' code
    /// is still on its way; taken by `load`.
    static EARLY_FETCH: RefCell<Option<js_sys::Promise>> = const { RefCell::new(None) };
}

/// Begins fetching the bundle, unless the course is here or on its way. Called from the
/// first load's route, so it is kept to a `fetch`.
pub fn begin_fetching() {
    if Course::is_loaded() || EARLY_FETCH.with(|early| early.borrow().is_some()) {
        return;
    }
    if let Some(window) = web_sys::window() {
        let fetch = window.fetch_with_str(&format!("{LESSONS_URL}{BUNDLE}"));
        EARLY_FETCH.with(|early| *early.borrow_mut() = Some(fetch));
    }
}

impl Course {
    /// The course once `load` has fetched it; empty before. The lessons route waits for
    /// `load` before it shows any page that reads the course.
    pub fn get() -> &'static Course {
        COURSE.get().unwrap_or(&NO_COURSE)
    }

    pub fn is_loaded() -> bool {
        COURSE.get().is_some()
    }

    /// Fetches and parses the course, once per page load: the build's bundle of it
    /// (`scripts/bundle-course.mjs`), or where there is none, the index and then each
    /// lesson it lists.
    pub async fn load() -> Result<&'static Course, String> {
        if let Some(course) = COURSE.get() {
            return Ok(course);
        }
        let bundle = match EARLY_FETCH.with(|early| early.borrow_mut().take()) {
            Some(fetch) => JsFuture::from(fetch),
            None => start_fetch(BUNDLE)?,
        };
        let (index, texts) = match finish_fetch(bundle).await? {
            Some(bundle) => {
                let mut texts = unbundle(&bundle)?;
                let at = texts.iter().position(|(file, _)| file == INDEX).ok_or("the course index is missing")?;
                (texts.swap_remove(at).1, texts)
            }
            None => fetch_files().await?,
        };
        Ok(COURSE.get_or_init(|| Course::from_texts(&index, &texts)))
    }

    /// Builds a course from an index text and `(file, text)` pairs; unlisted files are
    /// ignored and listed files without a text are left out.
    pub fn from_texts(index: &str, texts: &[(String, String)]) -> Course {
        let (index, _) = parse_index(index);
        let sections = index
            .sections
            .iter()
            .map(|section| CourseSection {
                title: section.title.clone(),
                lessons: section
                    .files
                    .iter()
                    .filter_map(|name| texts.iter().find(|(file, _)| file == name))
                    .map(|(file, text)| {
                        let (lesson, errors) = parse_lesson(text);
                        CourseLesson { file: file.clone(), lesson, errors }
                    })
                    .collect(),
            })
            .collect();
        let sample = index.sections.iter().flat_map(|s| s.files.iter()).find_map(|name| {
            texts.iter().find(|(file, _)| file == name).map(|(_, text)| text.clone())
        });
        Course { sections, sample: sample.unwrap_or_default() }
    }

    /// The first lesson's text, as a starting point for the instructor preview.
    pub fn sample_text() -> &'static str {
        &Course::get().sample
    }

    pub fn lessons(&self) -> impl Iterator<Item = &CourseLesson> {
        self.sections.iter().flat_map(|s| s.lessons.iter())
    }

    pub fn find(&self, id: &str) -> Option<&CourseLesson> {
        self.lessons().find(|l| l.lesson.meta.id == id)
    }

    /// The lessons before and after `id`, for the page's navigation.
    pub fn neighbours(&self, id: &str) -> (Option<&CourseLesson>, Option<&CourseLesson>) {
        let all: Vec<&CourseLesson> = self.lessons().collect();
        let at = all.iter().position(|l| l.lesson.meta.id == id);
        let before = at.and_then(|i| i.checked_sub(1)).and_then(|i| all.get(i).copied());
        let after = at.and_then(|i| all.get(i + 1).copied());
        (before, after)
    }
}

/// The course in one file, made by the build.
const BUNDLE: &str = "course.txt";

/// The course's outline: its sections and the lesson files of each.
const INDEX: &str = "index.md";

/// The index and every lesson it lists, each from its own file.
async fn fetch_files() -> Result<(String, Vec<(String, String)>), String> {
    let index = fetch_text(INDEX).await?.ok_or("the course index is missing")?;
    let (parsed, _) = parse_index(&index);
    // Every fetch starts before the first is awaited, so they load side by side.
    let pending: Vec<(String, Result<JsFuture, String>)> = parsed
        .sections
        .iter()
        .flat_map(|section| section.files.iter())
        .filter(|file| is_plain_file_name(file))
        .map(|file| (file.clone(), start_fetch(file)))
        .collect();
    let mut texts = Vec::with_capacity(pending.len());
    for (file, fetch) in pending {
        if let Some(text) = finish_fetch(fetch?).await? {
            texts.push((file, text));
        }
    }
    Ok((index, texts))
}

/// The `(file, text)` pairs of a bundle: a line `fencelab course 1`, then per file a line
/// `NAME BYTES`, that many bytes of text and a newline.
fn unbundle(bundle: &str) -> Result<Vec<(String, String)>, String> {
    let corrupt = |why: &str| format!("could not load the lessons: the course bundle ({BUNDLE}) {why}");
    let mut rest = bundle.strip_prefix("fencelab course 1\n").ok_or_else(|| corrupt("does not start with `fencelab course 1`"))?;
    let mut texts = Vec::new();
    while !rest.is_empty() {
        let (head, after) = rest.split_once('\n').ok_or_else(|| corrupt("ends inside a file's name line"))?;
        let (file, bytes) = head.split_once(' ').ok_or_else(|| corrupt(&format!("has a name line without a length: `{head}`")))?;
        let bytes: usize = bytes.parse().map_err(|_| corrupt(&format!("gives `{file}` the length `{bytes}`")))?;
        let text = after.get(..bytes).ok_or_else(|| corrupt(&format!("ends inside `{file}`")))?;
        rest = after.get(bytes..).and_then(|r| r.strip_prefix('\n')).ok_or_else(|| corrupt(&format!("has no newline after `{file}`")))?;
        texts.push((file.to_string(), text.to_string()));
    }
    Ok(texts)
}

/// Only plain names in `lessons/` become URLs; the core's `parse_index` reports the rest.
fn is_plain_file_name(file: &str) -> bool {
    file.ends_with(".md") && !file.contains(['/', '\\', ' ', '"', '?', '#', '%']) && !file.starts_with('.')
}

fn start_fetch(file: &str) -> Result<JsFuture, String> {
    let window = web_sys::window().ok_or("no window to fetch lessons from")?;
    Ok(JsFuture::from(window.fetch_with_str(&format!("{LESSONS_URL}{file}"))))
}

/// The body of a finished fetch; `None` when the server has no such file.
async fn finish_fetch(fetch: JsFuture) -> Result<Option<String>, String> {
    let response: Response = fetch.await.map_err(describe)?.dyn_into().map_err(describe)?;
    if !response.ok() {
        return Ok(None);
    }
    let text = JsFuture::from(response.text().map_err(describe)?).await.map_err(describe)?;
    Ok(text.as_string())
}

async fn fetch_text(file: &str) -> Result<Option<String>, String> {
    finish_fetch(start_fetch(file)?).await
}

fn describe(err: JsValue) -> String {
    let detail = err.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).or_else(|| err.as_string());
    format!("could not load the lessons: {}", detail.unwrap_or_else(|| "the browser refused".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The course as the app fetches it: the index and every file it lists.
    fn shipped_course() -> (usize, Course) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../lessons");
        let index = std::fs::read_to_string(dir.join("index.md")).expect("lessons/index.md");
        let (parsed, _) = parse_index(&index);
        let texts: Vec<(String, String)> = parsed
            .sections
            .iter()
            .flat_map(|s| s.files.iter())
            .map(|file| {
                assert!(is_plain_file_name(file), "{file} is a plain file name");
                (file.clone(), std::fs::read_to_string(dir.join(file)).expect("listed lesson exists"))
            })
            .collect();
        (texts.len(), Course::from_texts(&index, &texts))
    }

    #[test]
    fn the_shipped_course_lists_every_lesson_and_each_parses() {
        let (listed, course) = shipped_course();
        let files: Vec<&str> = course.lessons().map(|l| l.file.as_str()).collect();
        assert_eq!(files.len(), listed);
        assert!(files.len() >= 10, "expected the whole course, got {files:?}");
        for lesson in course.lessons() {
            assert_eq!(lesson.errors, vec![], "{} parses", lesson.file);
            assert!(!lesson.lesson.meta.id.is_empty(), "{} has an id", lesson.file);
        }
        assert!(course.sample.starts_with("---"), "the preview starts from the first lesson");
    }

    #[test]
    fn a_bundle_gives_back_each_file_whole_and_a_damaged_one_says_where() {
        let bundle = "fencelab course 1\nindex.md 8\n## A\n- a\nlé.md 3\nlé\n";
        let texts = unbundle(bundle).expect("a good bundle");
        assert_eq!(texts, vec![("index.md".to_string(), "## A\n- a".to_string()), ("lé.md".to_string(), "lé".to_string())]);
        assert_eq!(unbundle("fencelab course 1\n"), Ok(vec![]));
        for (damaged, says) in [
            ("fencelab course 2\n", "does not start"),
            ("fencelab course 1\nindex.md", "ends inside a file's name line"),
            ("fencelab course 1\nindex.md\n", "without a length"),
            ("fencelab course 1\nindex.md x\n", "the length `x`"),
            ("fencelab course 1\nindex.md 80\n## A\n", "ends inside `index.md`"),
            ("fencelab course 1\nlé.md 2\nlé\n", "ends inside `lé.md`"),
            ("fencelab course 1\nindex.md 2\nabc\n", "no newline after `index.md`"),
        ] {
            let err = unbundle(damaged).expect_err(damaged);
            assert!(err.contains(says) && err.contains("course.txt"), "{damaged:?}: {err}");
        }
    }

    #[test]
    fn file_names_that_would_leave_the_lessons_folder_are_not_fetched() {
        for bad in ["../secret.md", "a/b.md", ".hidden.md", "x.txt", "a b.md", "q?.md", "h#.md", "%2e%2e.md"] {
            assert!(!is_plain_file_name(bad), "{bad}");
        }
        assert!(is_plain_file_name("01-executed-is-not-visible.md"));
    }

    #[test]
    fn neighbours_follow_course_order() {
        let index = "## A\n- a.md\n- b.md\n## B\n- c.md\n";
        let lesson = |id: &str| format!("---\nid: {id}\ntitle: T\norder: 1\n---\nbody\n");
        let texts: Vec<(String, String)> = ["a", "b", "c"].iter().map(|id| (format!("{id}.md"), lesson(id))).collect();
        let course = Course::from_texts(index, &texts);
        let (before, after) = course.neighbours("b");
        assert_eq!(before.map(|l| l.file.as_str()), Some("a.md"));
        assert_eq!(after.map(|l| l.file.as_str()), Some("c.md"));
        assert!(course.neighbours("a").0.is_none());
        assert!(course.neighbours("zzz").1.is_none());
        assert_eq!(course.sample, lesson("a"));
    }
}
