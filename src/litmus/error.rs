//! Why a litmus test could not be imported.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LitmusError {
    /// The text is not valid litmus syntax.
    Syntax { line: usize, message: String },
    /// Valid litmus, but the scenario model cannot express it faithfully.
    Unsupported { line: Option<usize>, reason: String },
}

impl LitmusError {
    pub fn syntax(line: usize, message: impl Into<String>) -> Self {
        LitmusError::Syntax {
            line,
            message: message.into(),
        }
    }

    pub fn unsupported(line: Option<usize>, reason: impl Into<String>) -> Self {
        LitmusError::Unsupported {
            line,
            reason: reason.into(),
        }
    }

    pub fn line(&self) -> Option<usize> {
        match self {
            LitmusError::Syntax { line, .. } => Some(*line),
            LitmusError::Unsupported { line, .. } => *line,
        }
    }

    pub fn is_unsupported(&self) -> bool {
        matches!(self, LitmusError::Unsupported { .. })
    }
}

impl fmt::Display for LitmusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LitmusError::Syntax { line, message } => write!(f, "line {line}: {message}"),
            LitmusError::Unsupported {
                line: Some(line),
                reason,
            } => {
                write!(f, "line {line}: unsupported: {reason}")
            }
            LitmusError::Unsupported { line: None, reason } => write!(f, "unsupported: {reason}"),
        }
    }
}

impl std::error::Error for LitmusError {}
