//! Malformed and hostile input: errors that name the line, never a panic.

use super::MP;
use crate::litmus::import;

#[test]
fn malformed_tests_name_the_line() {
    let cases = [
        ("", 1),
        ("C test\n{ }", 1),
        (
            "PTX t\n{ x=0 }\n P0@cta 0,gpu 0 ;\n st.weak.cta x, 1 ;\nexists (x == 1)",
            4,
        ),
        (
            "PTX t\n{ x=0 }\n P0@cta 0,gpu 0 ;\n ld.relaxed r0, x ;\nexists (x == 1)",
            4,
        ),
        (
            "PTX t\n{ x=0 }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 | st.weak x, 2 ;\nexists (x == 1)",
            4,
        ),
        (
            "PTX t\n{ x=0 }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1) junk",
            5,
        ),
        ("PTX t\n{ x=0 }\n P0@cta 0,gpu 0 | P0@cta 1,gpu 0 ;\n", 3),
    ];
    for (src, line) in cases {
        let err = import(src).unwrap_err();
        assert!(!err.is_unsupported(), "{src}: {err}");
        assert_eq!(err.line(), Some(line), "{src}: {err}");
    }
    let mul = "PTX t\n{ }\n P0@cta 0,gpu 0 ;\n mul r0, r0, 2 ;\nexists (0 == 0)";
    assert!(import(mul).unwrap_err().is_unsupported());
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(src in "\\PC{0,300}") {
            let _ = import(&src);
        }

        #[test]
        fn mutated_tests_never_panic(cut in 0usize..400, insert in "[ -~\\n]{0,12}") {
            let mut src: String = MP.chars().take(cut).collect();
            src.push_str(&insert);
            src.extend(MP.chars().skip(cut));
            let _ = import(&src);
        }

        #[test]
        fn deep_nesting_is_an_error_not_a_stack_overflow(depth in 60usize..5000) {
            let cond = format!("{}P0:r0 == 0{}", "(".repeat(depth), ")".repeat(depth));
            let src = format!("PTX t\n{{ }}\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists {cond}");
            let _ = import(&src);
        }
    }
}
