//! Colour: with `NO_COLOR` unset, output to a pipe still carries no ANSI escapes.

use crate::support::{keel, lint};
use keel_fixtures::FixtureRepo;
use keel_fixtures::demo::build_demo;

#[test]
fn without_no_color_output_to_a_pipe_has_no_ansi_escapes() {
    let mut repo = FixtureRepo::new().expect("a fixture repository");
    build_demo(&mut repo).expect("the demo history");
    let run = |args: &[&str]| {
        let output = keel(repo.path())
            .env_remove("NO_COLOR")
            .args(args)
            .output()
            .expect("the keel binary runs");
        crate::support::Run::from(output)
    };
    let repo_arg = repo.path().display().to_string();

    let report = run(&["lint", "--repo", &repo_arg]);
    assert_eq!(report.code, 1, "{}", report.render(None));
    // The same text as with NO_COLOR=1: colour is the only thing a pipe could lose.
    assert_eq!(report.stdout, lint(repo.path(), &[]).stdout);

    let runs = [
        report,
        run(&["demo"]),
        run(&["lint", "--repo", &repo_arg, "--bogus"]),
        run(&["--help"]),
    ];
    for run in &runs {
        assert!(!run.stdout.is_empty() || !run.stderr.is_empty());
        for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            assert!(!text.contains('\x1b'), "ANSI escape on {stream}:\n{text:?}");
        }
    }
}
