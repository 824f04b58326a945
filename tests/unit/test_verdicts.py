"""Test verdicts read from a tool call's command and output, and the failing set they keep."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from continuity_core.extraction.failing_tests import (
    Failing,
    falls_under,
    from_records,
    same_test,
    to_records,
    track,
)
from continuity_core.extraction.verdicts import TestRun, parse_run

SAMPLES = Path(__file__).parent / "verdict_samples"


def sample(name: str) -> str:
    return (SAMPLES / f"{name}.txt").read_text()


def trimmed(output: str, keep: str) -> str:
    """``output`` as the client sends a long result: the first 500 characters, the marker, the lines
    of the rest matching ``keep`` (its verdict lines) and the last line."""
    head, rest = output[:500], output[500:]
    lines = rest.splitlines()
    chosen = [line for line in lines[:-1] if re.search(keep, line)] + lines[-1:]
    return f"{head.rstrip()} … [+{len(rest)} chars; verdict lines follow]\n" + "\n".join(chosen)


# --- failing runs, one per runner -------------------------------------------------------------------


def test_a_failing_pytest_run_names_its_failures_and_their_assertion_messages() -> None:
    # Given pytest's default output with two failures
    # When it is read
    run = parse_run("pytest -q", sample("pytest_fail"))

    # Then the failing node ids and the messages of the summary's FAILED lines come out
    assert run == TestRun(
        runner="pytest",
        failed=(
            "tests/test_api.py::test_refund_rounding",
            "tests/test_cart.py::TestCart::test_total[coupon-10]",
        ),
        errors=("AssertionError: assert Decimal('10.00') == Decimal('10.01')", "KeyError: 'coupon'"),
    )


def test_a_pytest_collection_error_names_the_module_and_the_syntax_error() -> None:
    # Given a test module that does not import
    output = """\
==================================== ERRORS ====================================
____________________ ERROR collecting tests/test_parser.py _____________________
.venv/lib/python3.11/site-packages/_pytest/python.py:493: in importtestmodule
    mod = import_path(
E     File "/work/shop/tests/test_parser.py", line 7
E       def test_split(
E                     ^
E   SyntaxError: '(' was never closed
=========================== short test summary info ============================
ERROR tests/test_parser.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
1 error in 0.08s"""

    # When it is read
    run = parse_run("python -m pytest tests", output)

    # Then the module is failing and the syntax error is the error line
    assert run is not None
    assert run.failed == ("tests/test_parser.py",)
    assert run.errors == ("SyntaxError: '(' was never closed",)
    assert not run.all_passed


def test_a_failing_unittest_run_names_failures_and_errors_by_their_dotted_ids() -> None:
    run = parse_run("python -m unittest -v", sample("unittest_fail"))

    assert run is not None
    assert run.runner == "unittest"
    assert run.failed == (
        "tests.test_db.TestDB.test_connect",
        "tests.test_http.TestParseHeader.test_parse_header",
    )
    assert run.passed == ("tests.test_http.TestParseHeader.test_empty",)
    assert run.errors == (
        "ConnectionRefusedError: [Errno 111] Connection refused",
        "AssertionError: {'X-Trace': '1'} != {'x-trace': '1'}",
    )


def test_a_failing_go_run_names_tests_subtests_and_the_package_that_did_not_build() -> None:
    # Given `go test ./...` with a failing subtest and a package that does not compile
    run = parse_run("go test ./...", sample("go_fail"))

    # Then the tests, the unbuilt package and both messages come out; the passing package is named
    assert run == TestRun(
        runner="go",
        failed=("TestParseHeader", "TestParseHeader/mixed_case", "github.com/acme/shop/internal/cart"),
        passed=("github.com/acme/shop/internal/api",),
        errors=('got "X-Trace", want "x-trace"', "undefined: applyCoupon"),
    )


def test_a_failing_cargo_run_names_the_test_path_and_the_panic_message() -> None:
    run = parse_run("cargo test", sample("cargo_fail"))

    assert run == TestRun(
        runner="cargo",
        failed=("cart::tests::applies_coupon",),
        passed=("parser::tests::it_parses", "cart::tests::totals"),
        errors=("assertion `left == right` failed, left: 90, right: 85",),
    )


def test_a_cargo_build_that_does_not_compile_is_a_test_run_with_only_the_compile_error() -> None:
    run = parse_run("cargo test", sample("cargo_compile_error"))

    assert run == TestRun(runner="cargo", errors=("error[E0308]: mismatched types",))


def test_a_failing_nextest_run_names_tests_as_cargo_test_does() -> None:
    run = parse_run("cargo nextest run", sample("nextest_fail"))

    assert run is not None
    assert run.runner == "cargo"
    assert run.failed == ("cart::tests::applies_coupon",)
    assert run.passed == ("parser::tests::it_parses", "cart::tests::totals")


def test_a_failing_vitest_run_names_the_file_and_the_describe_path() -> None:
    run = parse_run("npx vitest run", sample("vitest_fail"))

    assert run == TestRun(
        runner="vitest",
        failed=("src/cart.test.ts > cart > applies coupon",),
        passed=("src/price.test.ts",),
        errors=("AssertionError: expected 90 to be 85 // Object.is equality",),
    )


def test_a_failing_jest_run_through_npm_test_names_failures_and_verbose_passes() -> None:
    # Given `npm test` whose script is jest (only the output says so)
    run = parse_run("npm test", sample("jest_fail"))

    assert run == TestRun(
        runner="jest",
        failed=("src/cart.test.js > cart > applies coupon",),
        passed=(
            "src/price.test.js",
            "src/cart.test.js > cart > totals",
            "src/cart.test.js > cart > coupons > rejects expired codes",
        ),
        errors=("Expected: 85, Received: 90",),
    )


def test_a_failing_gradle_run_names_class_and_method_as_gradle_prints_them() -> None:
    run = parse_run("./gradlew test", sample("gradle_fail"))

    assert run == TestRun(
        runner="gradle",
        failed=("CartServiceTest > appliesCoupon()",),
        passed=("CartServiceTest > rejectsExpiredCoupon()",),
        errors=("AssertionFailedError at CartServiceTest.java:24",),
    )


def test_a_failing_maven_run_names_class_dot_method_once() -> None:
    run = parse_run("mvn -q test", sample("maven_fail"))

    assert run == TestRun(
        runner="maven",
        failed=("CartServiceTest.appliesCoupon",),
        errors=("AssertionFailedError: expected: <85> but was: <90>",),
    )


def test_a_failing_ctest_run_names_failed_and_crashed_tests() -> None:
    run = parse_run("ctest --test-dir build --output-on-failure", sample("ctest_fail"))

    assert run == TestRun(runner="ctest", failed=("parser_test", "io_test"), passed=("cart_test",))


def test_a_failing_rspec_run_names_the_example_by_file_and_line() -> None:
    run = parse_run("bundle exec rspec", sample("rspec_fail"))

    assert run == TestRun(
        runner="rspec",
        failed=("./spec/models/user_spec.rb:42",),
        errors=('expected: "Ada Lovelace" got: "Ada  Lovelace"',),
    )


# --- passing runs, one per runner -------------------------------------------------------------------

PASSING = [
    ("pytest -q", "pytest"),
    ("python3 -m unittest discover -s tests", "unittest"),
    ("go test ./...", "go"),
    ("cargo test", "cargo"),
    ("pnpm vitest run", "vitest"),
    ("yarn jest", "jest"),
    ("./gradlew test", "gradle"),
    ("./mvnw verify", "maven"),
    ("make test", "ctest"),
    ("rspec", "rspec"),
]


@pytest.mark.parametrize(("command", "runner"), PASSING, ids=[p[1] for p in PASSING])
def test_a_passing_run_of_every_runner_says_all_passed_and_names_no_failure(
    command: str, runner: str
) -> None:
    run = parse_run(command, sample(f"{runner}_pass"))

    assert run is not None
    assert (run.runner, run.all_passed, run.failed, run.errors) == (runner, True, (), ())


def test_a_verbose_passing_run_names_each_passing_test() -> None:
    run = parse_run("go test -v ./internal/httpx", sample("go_verbose_pass"))

    assert run is not None
    assert run.all_passed
    assert run.passed[:3] == ("TestParseHeader", "TestParseHeader/mixed_case", "TestSplitList")


def test_a_pytest_run_that_collected_nothing_is_not_all_passed() -> None:
    output = "collected 10 items / 10 deselected / 0 selected\n\n===== 10 deselected in 0.05s ====="

    run = parse_run("pytest -k nothing_matches", output)

    assert run is not None
    assert not run.all_passed


# --- the runner from the output alone ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "runner"),
    [
        ("pytest_fail", "pytest"),
        ("unittest_fail", "unittest"),
        ("go_fail", "go"),
        ("cargo_fail", "cargo"),
        ("vitest_fail", "vitest"),
        ("jest_fail", "jest"),
        ("gradle_fail", "gradle"),
        ("maven_fail", "maven"),
        ("ctest_fail", "ctest"),
        ("rspec_fail", "rspec"),
    ],
)
def test_a_wrapper_script_s_output_is_recognised_by_its_shape(name: str, runner: str) -> None:
    # Given a command that does not name the runner
    run = parse_run("./scripts/ci.sh", sample(name))

    # Then the output's own lines say which runner ran, with the same verdicts
    direct = parse_run("mvn test" if runner == "maven" else runner, sample(name))
    assert run is not None and direct is not None
    assert run.runner == runner
    assert run.failed == direct.failed != ()


# --- trimmed outputs ----------------------------------------------------------------------------------


def test_a_long_verbose_pytest_output_trimmed_to_its_verdict_lines_keeps_every_failure() -> None:
    # Given 300 verbose results, two of them failures, trimmed as the client sends them
    verdict = {117: "FAILED", 254: "FAILED"}
    results = [
        f"tests/api/test_orders.py::test_order_{n} {verdict.get(n, 'PASSED'):<26}[ {n // 3:>2}%]"
        for n in range(300)
    ]
    output = "\n".join(
        ["============================= test session starts ==============================", *results,
         "=========================== short test summary info ============================",
         "FAILED tests/api/test_orders.py::test_order_117 - assert 3 == 4",
         "FAILED tests/api/test_orders.py::test_order_254 - ValueError: negative quantity",
         "======================== 2 failed, 298 passed in 4.21s ========================="]
    )  # fmt: skip
    sent = trimmed(output, keep=r"FAILED|passed|failed")
    assert "… [+" in sent and len(sent) < len(output) // 10

    # When it is read
    run = parse_run("pytest -v tests/api", sent)

    # Then both failures and their messages are there, and the head's cut-off line named nothing
    assert run is not None
    assert run.failed == (
        "tests/api/test_orders.py::test_order_117",
        "tests/api/test_orders.py::test_order_254",
    )
    assert run.errors == ("assert 3 == 4", "ValueError: negative quantity")
    assert set(run.passed) <= {f"tests/api/test_orders.py::test_order_{n}" for n in range(300)}
    assert not run.all_passed


def test_a_trimmed_cargo_output_keeps_its_failures_from_the_verdict_lines() -> None:
    tests = "\n".join(
        f"test store::tests::case_{n:03} ... {'FAILED' if n == 77 else 'ok'}" for n in range(120)
    )
    output = (
        "   Compiling shop v0.1.0 (/work/shop)\n"
        "     Running unittests src/lib.rs (target/debug/deps/shop-1a2b)\n\n"
        f"running 120 tests\n{tests}\n\nfailures:\n\n---- store::tests::case_077 stdout ----\n\n"
        "thread 'store::tests::case_077' panicked at src/store.rs:88:5:\n"
        "index out of bounds: the len is 3 but the index is 3\n\n\nfailures:\n    store::tests::case_077\n\n"
        "test result: FAILED. 119 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; "
        "finished in 0.02s\n\n"
        "error: test failed, to rerun pass `--lib`"
    )

    run = parse_run("cargo test", trimmed(output, keep=r"FAILED|panicked|test result"))

    assert run is not None
    assert run.failed == ("store::tests::case_077",)
    assert not run.all_passed


def test_a_trimmed_passing_run_whose_summary_is_the_last_line_is_all_passed() -> None:
    output = (
        "\n".join(f"tests/test_x.py::test_{n} PASSED" for n in range(100))
        + "\n===== 100 passed in 1.01s ====="
    )

    run = parse_run("pytest -v", trimmed(output, keep=r"FAILED"))

    assert run is not None
    assert run.all_passed


# --- not test runs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("ls -la", "total 24\n-rw-r--r--  1 dev dev  812 Nov 22 11:58 pytest.ini\n"
         "-rw-r--r--  1 dev dev 1204 Nov 22 11:58 test_api.py"),
        ("git status", sample("git_status")),
        ("cargo build", sample("cargo_build_warnings")),
        ("git log --oneline -3", "a1b2c3d Fix FAILED refunds in checkout\n"
         "9f8e7d6 ERROR handling for test result: ok\n1234567 tests: 3 passed, 0 failed"),
        ("tail -n 4 logs/app.log", "2026-11-22 12:00:01 ERROR payments: charge FAILED for order 17\n"
         "Traceback (most recent call last):\n  File \"shop/payments.py\", line 88, in charge\n"
         "ValueError: bad amount"),
        ("pytest --version", "pytest 8.3.2"),
    ],
    ids=["ls", "git-status", "build-warnings", "git-log-prose", "app-log", "pytest-version"],
)  # fmt: skip
def test_output_that_is_not_a_test_run_gives_none(command: str, output: str) -> None:
    assert parse_run(command, output) is None


def test_a_command_that_only_mentions_a_runner_is_not_a_test_run() -> None:
    assert parse_run("grep -rn pytest docs/", "docs/dev.md:12: run pytest -q before pushing") is None


# --- adversarial lines inside real runs --------------------------------------------------------------------


def test_log_lines_saying_failed_or_error_inside_a_pytest_run_invent_no_test() -> None:
    # Given a run whose captured output has app log lines that say ERROR and FAILED in prose
    output = """\
tests/test_api.py::test_refund_rounding FAILED                           [ 50%]
tests/test_api.py::test_refund_full PASSED                               [100%]
----------------------------- Captured stdout call -----------------------------
FAILED to reach gateway, retrying (1/3)
ERROR    shop.payments:payments.py:88 refund FAILED for order 17: gateway timeout
ERROR: payments worker stopped
=========================== short test summary info ============================
FAILED tests/test_api.py::test_refund_rounding - assert 10.0 == 10.01
========================= 1 failed, 1 passed in 0.31s =========================="""

    run = parse_run("pytest -v tests/test_api.py", output)

    # Then only the real failure is named
    assert run is not None
    assert run.failed == ("tests/test_api.py::test_refund_rounding",)
    assert run.passed == ("tests/test_api.py::test_refund_full",)


def test_an_app_error_logged_during_a_go_run_is_not_a_test_name() -> None:
    output = """\
2026/11/22 12:00:01 ERROR FAIL: could not reach gateway: dial tcp 127.0.0.1:9000: connect: connection refused
--- FAIL: TestCharge (0.01s)
    charge_test.go:31: charge: gateway unavailable
FAIL
FAIL\tgithub.com/acme/shop/internal/payments\t0.034s
FAIL"""

    run = parse_run("go test ./internal/payments", output)

    assert run is not None
    assert run.failed == ("TestCharge",)


# --- scope ------------------------------------------------------------------------------------------


PASSING_SUMMARY = {
    "pytest": "3 passed in 0.10s",
    "unittest": "Ran 3 tests in 0.001s\n\nOK",
    "go": "ok  \tgithub.com/acme/shop/internal/cart\t0.015s",
    "cargo": "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    "vitest": " Test Files  1 passed (1)\n      Tests  3 passed (3)",
    "gradle": "> Task :test\n\nBUILD SUCCESSFUL in 3s",
    "maven": "[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0",
    "ctest": "100% tests passed, 0 tests failed out of 3",
    "rspec": "3 examples, 0 failures",
}


@pytest.mark.parametrize(
    ("command", "runner", "scope"),
    [
        ("pytest tests/api -k refund", "pytest", ("tests/api", "refund")),
        ("cd api && .venv/bin/python -m pytest -q tests/unit -p no:cacheprovider 2>&1 | tail -20", "pytest",
         ("tests/unit",)),
        ("uv run pytest -x --tb=short tests/test_api.py::test_refund_rounding", "pytest",
         ("tests/test_api.py::test_refund_rounding",)),
        ("pytest -m 'not slow' tests", "pytest", ("tests", "-m not slow")),
        ("pytest -q", "pytest", ()),
        ("python -m unittest tests.test_http", "unittest", ("tests.test_http",)),
        ("go test ./internal/cart/...", "go", ("./internal/cart/...",)),
        ("go test -run 'TestParse' -count=1 ./internal/httpx", "go", ("./internal/httpx", "TestParse")),
        ("go test ./...", "go", ()),
        ("go test", "go", (".",)),
        ("cargo test parser", "cargo", ("parser",)),
        ("RUST_BACKTRACE=1 cargo test -p shop cart:: -- --nocapture", "cargo", ("cart::", "-p shop")),
        ("npx vitest run src/cart", "vitest", ("src/cart",)),
        ("npm test -- src/cart -t 'applies coupon'", "vitest", ("src/cart", "applies coupon")),
        ("./gradlew test --tests CartServiceTest", "gradle", ("CartServiceTest",)),
        ("mvn test -Dtest=CartServiceTest#appliesCoupon", "maven", ("CartServiceTest#appliesCoupon",)),
        ("ctest -R parser --output-on-failure -j 8", "ctest", ("parser",)),
        ("bundle exec rspec spec/models/user_spec.rb:42", "rspec", ("spec/models/user_spec.rb:42",)),
    ],
)  # fmt: skip
def test_the_scope_is_what_the_command_restricted_the_run_to(
    command: str, runner: str, scope: tuple[str, ...]
) -> None:
    run = parse_run(command, PASSING_SUMMARY[runner])

    assert run is not None
    assert (run.runner, run.scope) == (runner, scope)


# --- the failing set --------------------------------------------------------------------------------


def failing_pytest(prompt: int, *tests: str) -> tuple[Failing, ...]:
    return tuple(Failing(test=t, runner="pytest", since_prompt=prompt) for t in tests)


def test_a_test_reported_failing_is_added_with_the_prompt_of_the_run() -> None:
    run = parse_run("pytest -q", sample("pytest_fail"))

    failing = track((), run, prompt=4)

    assert failing == failing_pytest(
        4, "tests/test_api.py::test_refund_rounding", "tests/test_cart.py::TestCart::test_total[coupon-10]"
    )


def test_a_test_still_failing_keeps_the_prompt_that_first_showed_it_failing() -> None:
    before = failing_pytest(4, "tests/test_api.py::test_refund_rounding")

    after = track(before, parse_run("pytest -q", sample("pytest_fail")), prompt=9)

    assert after[0] == Failing("tests/test_api.py::test_refund_rounding", "pytest", 4)
    assert after[1].since_prompt == 9


def test_a_test_reported_passing_is_removed() -> None:
    # Given a failing test and a verbose run naming it as passing (other tests still fail elsewhere)
    before = failing_pytest(4, "tests/test_api.py::test_refund_rounding", "tests/test_cart.py::test_total")
    output = "tests/test_api.py::test_refund_rounding PASSED   [100%]\n=== 1 passed, 1 warning in 0.03s ==="

    after = track(before, parse_run("pytest -v tests/test_api.py::test_refund_rounding", output), prompt=6)

    assert after == failing_pytest(4, "tests/test_cart.py::test_total")


def test_one_test_named_from_two_folders_is_one_failure_and_its_pass_clears_it() -> None:
    # Given a failure seen by a run from the project's root (a corpus session ran pytest from both)
    before = failing_pytest(3, "test/test_link.py::TestLink::test_css")
    from_inside = "test_link.py::TestLink::test_css FAILED   [100%]\n=== 1 failed in 0.03s ==="

    # When a run from inside test/ names it without the folder
    again = track(before, parse_run("pytest -v test_link.py", from_inside), prompt=4)
    # Then it is the same failing test, still since prompt 3, not a second line
    assert again == before

    # And its pass from inside the folder clears it; a name that only ends alike does not match
    passed = "test_link.py::TestLink::test_css PASSED   [100%]\n=== 1 passed in 0.03s ==="
    assert track(again, parse_run("pytest -v test_link.py", passed), prompt=5) == ()
    assert not same_test("test/a_test_link.py::t", "test_link.py::t")


def test_a_passing_run_given_an_absolute_path_clears_the_failures_under_it() -> None:
    # Given failures named from the project's root, and a quiet pass of the file by its absolute path
    before = failing_pytest(3, "test/test_link.py::TestLink::test_css", "test/test_other.py::test_x")
    quiet_pass = f"{'.' * 6}{' ' * 67}[100%]\n6 passed in 0.33s"

    after = track(before, parse_run("pytest /Users/ana/shop/test/test_link.py", quiet_pass), prompt=6)

    # Then the file's failure is cleared and the other file's stays
    assert after == failing_pytest(3, "test/test_other.py::test_x")


def test_a_passing_run_of_the_same_scope_clears_a_failure_but_one_of_another_scope_does_not() -> None:
    # Given a failure seen by `pytest tests/api`
    before = failing_pytest(4, "tests/api/test_refund.py::test_rounding")
    quiet_pass = (
        "........                                                                 [100%]\n8 passed in 0.20s"
    )

    # When another directory passes, then the same one passes
    other = track(before, parse_run("pytest -q tests/cart", quiet_pass), prompt=5)
    same = track(other, parse_run("pytest -q tests/api", quiet_pass), prompt=6)

    # Then only the run covering it clears it
    assert other == before
    assert same == ()


def test_a_passing_run_filtered_by_name_clears_only_the_tests_the_filter_selects() -> None:
    before = failing_pytest(
        4, "tests/api/test_refund.py::test_rounding", "tests/api/test_cart.py::test_total"
    )

    after = track(
        before, parse_run("pytest tests/api -k refund", "3 passed, 5 deselected in 0.12s"), prompt=5
    )

    assert after == failing_pytest(4, "tests/api/test_cart.py::test_total")


def test_a_passing_run_of_the_whole_suite_clears_every_failure_of_its_runner_only() -> None:
    before = (
        *failing_pytest(4, "tests/api/test_refund.py::test_rounding"),
        Failing("src/cart.test.ts > cart > applies coupon", "vitest", 5),
    )

    after = track(before, parse_run("pytest", "120 passed in 3.10s"), prompt=7)

    assert after == (Failing("src/cart.test.ts > cart > applies coupon", "vitest", 5),)


def test_a_passing_run_restricted_by_a_marker_clears_nothing_by_scope() -> None:
    before = failing_pytest(4, "tests/api/test_refund.py::test_rounding")

    after = track(before, parse_run("pytest -m 'not slow'", "40 passed, 3 deselected in 1.10s"), prompt=5)

    assert after == before


def test_a_go_failure_is_cleared_by_a_name_filter_or_the_whole_module_not_by_another_package() -> None:
    # Given a go test failing (go names it without its package)
    before = (Failing("TestParseHeader", "go", 3),)
    ok = "ok  \tgithub.com/acme/shop/internal/api\t0.020s"

    # Then a passing run of some package cannot be known to cover it; `-run` it and `./...` can
    assert track(before, parse_run("go test ./internal/api/...", ok), prompt=4) == before
    assert track(before, parse_run("go test -run TestParseHeader ./...", ok), prompt=4) == ()
    assert track(before, parse_run("go test ./...", ok), prompt=4) == ()


def test_a_package_that_did_not_build_is_cleared_when_it_passes() -> None:
    before = track((), parse_run("go test ./...", sample("go_fail")), prompt=2)

    after = track(
        before, parse_run("go test ./internal/cart", "ok  \tgithub.com/acme/shop/internal/cart\t0.01s"), 3
    )

    assert "github.com/acme/shop/internal/cart" not in {f.test for f in after}
    assert "TestParseHeader" in {f.test for f in after}


def test_a_gradle_failure_is_cleared_by_a_passing_run_filtered_to_its_class() -> None:
    before = track((), parse_run("./gradlew test", sample("gradle_fail")), prompt=2)

    after = track(
        before,
        parse_run(
            "./gradlew test --tests 'com.acme.shop.CartServiceTest'", "> Task :test\n\nBUILD SUCCESSFUL in 5s"
        ),
        prompt=3,
    )

    assert before and after == ()


def test_a_run_that_is_not_a_test_run_leaves_the_failing_set_alone() -> None:
    before = failing_pytest(4, "tests/api/test_refund.py::test_rounding")

    assert track(before, parse_run("ls", "README.md"), prompt=5) == before


def test_the_failing_set_round_trips_through_plain_records() -> None:
    failing = (
        Failing("TestParseHeader", "go", 3),
        *failing_pytest(4, "tests/test_api.py::test_refund_rounding"),
    )

    records = to_records(failing)

    assert records[0] == {"test": "TestParseHeader", "runner": "go", "prompt": 3}
    assert from_records(records) == failing
    assert from_records([{"test": "x"}, {"test": "y", "runner": "go", "prompt": "3"}]) == ()


def test_an_expression_filter_covers_no_test_and_an_exclusion_covers_all_but_what_it_names() -> None:
    test = "tests/api/test_refund.py::test_rounding_slow"

    assert not falls_under(test, ("refund and not slow",), "pytest")
    assert not falls_under(test, ("not slow",), "pytest")
    assert falls_under("tests/api/test_cart.py::test_total", ("not slow",), "pytest")
