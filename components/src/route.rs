//! Hash routes: `#/explore`, `#/lessons/<id>`, `#/s/<code>`. Pure, so it tests natively.

/// A page of the app, as named by the URL hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// The interleaving explorer (also the page for an empty hash).
    Explore,
    /// A lesson by id, or the list of lessons when `None`.
    Lesson(Option<String>),
    /// A scenario shared as a link code.
    Shared(String),
    /// Anything else: the hash as written, so the page can name it.
    NotFound(String),
}

impl Route {
    /// Reads a `location.hash` value (with or without the leading `#`).
    pub fn from_hash(hash: &str) -> Route {
        let path = hash.strip_prefix('#').unwrap_or(hash);
        let path = path.strip_prefix('/').unwrap_or(path);
        let mut parts = path.splitn(2, '/');
        let head = parts.next().unwrap_or("");
        let rest = parts.next().unwrap_or("").trim_end_matches('/');
        match head {
            "" | "explore" if rest.is_empty() => Route::Explore,
            "lessons" if rest.is_empty() => Route::Lesson(None),
            "lessons" if !rest.contains('/') => Route::Lesson(Some(rest.to_string())),
            "s" if !rest.is_empty() => Route::Shared(rest.to_string()),
            _ => Route::NotFound(hash.to_string()),
        }
    }

    /// The hash that leads to this route, `#/…`.
    pub fn href(&self) -> String {
        match self {
            Route::Explore => "#/explore".to_string(),
            Route::Lesson(None) => "#/lessons".to_string(),
            Route::Lesson(Some(id)) => format!("#/lessons/{id}"),
            Route::Shared(code) => format!("#/s/{code}"),
            Route::NotFound(hash) => hash.clone(),
        }
    }

    /// Which top-level nav entry this route belongs to.
    pub fn section(&self) -> Section {
        match self {
            Route::Explore | Route::Shared(_) => Section::Explore,
            Route::Lesson(_) => Section::Lessons,
            Route::NotFound(_) => Section::None,
        }
    }
}

/// Top-level nav entries, so the header can mark the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Explore,
    Lessons,
    None,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_explore_hashes_open_the_explorer() {
        assert_eq!(Route::from_hash(""), Route::Explore);
        assert_eq!(Route::from_hash("#"), Route::Explore);
        assert_eq!(Route::from_hash("#/"), Route::Explore);
        assert_eq!(Route::from_hash("#/explore"), Route::Explore);
    }

    #[test]
    fn lessons_with_and_without_id() {
        assert_eq!(Route::from_hash("#/lessons"), Route::Lesson(None));
        assert_eq!(Route::from_hash("#/lessons/"), Route::Lesson(None));
        assert_eq!(
            Route::from_hash("#/lessons/mp-basics"),
            Route::Lesson(Some("mp-basics".into()))
        );
        assert_eq!(
            Route::from_hash("#/lessons/a/b"),
            Route::NotFound("#/lessons/a/b".into())
        );
    }

    #[test]
    fn shared_code_keeps_every_character_after_the_prefix() {
        assert_eq!(Route::from_hash("#/s/v1.AbC-_"), Route::Shared("v1.AbC-_".into()));
        assert_eq!(Route::from_hash("#/s/"), Route::NotFound("#/s/".into()));
    }

    #[test]
    fn unknown_hash_is_not_found_and_round_trips() {
        let route = Route::from_hash("#/nowhere");
        assert_eq!(route, Route::NotFound("#/nowhere".into()));
        assert_eq!(route.href(), "#/nowhere");
    }

    #[test]
    fn href_round_trips() {
        for route in [
            Route::Explore,
            Route::Lesson(None),
            Route::Lesson(Some("x1".into())),
            Route::Shared("abc".into()),
        ] {
            assert_eq!(Route::from_hash(&route.href()), route);
        }
    }
}
