"""Long tool results keep their head and the lines that say how a test run went."""

# ruff: noqa: RUF001 - the runners' own glyphs (multiplication sign, angle quote) are the data

from __future__ import annotations

import pytest

from continuity_client.hook import harness, transcript

UNRELATED = "this line is noise and must not survive the trim"


def noise(prefix: str, count: int = 30) -> str:
    """Enough ordinary output to push what follows past the first 500 characters."""
    lines = [f"{prefix} {n}: some ordinary progress output that nobody needs later" for n in range(count)]
    lines.insert(count // 2, UNRELATED)
    return "\n".join(lines)


PYTEST = f"""============================= test session starts ==============================
platform linux -- Python 3.11.9, pytest-8.3.2, pluggy-1.5.0
rootdir: /work/shop
collected 214 items

{noise("tests/test_many.py ........................................ [ 40%]")}
=================================== FAILURES ===================================
________________________________ test_partial _________________________________

    def test_partial():
>       assert refund(Decimal("10.00")) == Decimal("10.00")
E       AssertionError: assert Decimal('10.000001') == Decimal('10.00')

tests/payments/test_refund.py:42: AssertionError
=========================== short test summary info ============================
FAILED tests/payments/test_refund.py::test_partial - AssertionError: assert Decimal('10.000001') == ...
FAILED tests/payments/test_refund.py::test_full[eur] - KeyError: 'eur'
ERROR tests/payments/test_mock.py::test_clock - fixture 'frozen' not found
=================== 2 failed, 211 passed, 1 error in 12.31s ===================="""

UNITTEST = f"""{noise("test_something (tests.test_mod.TestA.test_something) ... ok")}
test_parse (tests.test_tokenizer.TokenizerTest.test_parse) ... FAIL

======================================================================
FAIL: test_parse (tests.test_tokenizer.TokenizerTest.test_parse)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/work/tests/test_tokenizer.py", line 12, in test_parse
    self.assertEqual(tokens("a b"), ["a", "b"])
AssertionError: Lists differ: ['a b'] != ['a', 'b']

----------------------------------------------------------------------
Ran 31 tests in 0.004s

FAILED (failures=1)"""

CARGO = f"""   Compiling tokenizer v0.1.0 (/work/tokenizer)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.21s
     Running unittests src/lib.rs (target/debug/deps/tokenizer-3f1c)

running 32 tests
{noise("test tests::passes ... ok")}
test tests::splits_on_unicode_space ... FAILED
test tests::keeps_quotes ... FAILED

failures:

---- tests::splits_on_unicode_space stdout ----
thread 'tests::splits_on_unicode_space' panicked at src/lib.rs:88:9:
assertion `left == right` failed
  left: 1
 right: 2
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace

---- tests::keeps_quotes stdout ----
thread 'tests::keeps_quotes' panicked at src/lib.rs:97:9:
called `Option::unwrap()` on a `None` value


failures:
    tests::keeps_quotes
    tests::splits_on_unicode_space

test result: FAILED. 30 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s

error: test failed, to rerun pass `--lib`"""

GO = f"""=== RUN   TestParse
{noise("=== RUN   TestParse/case")}
    parse_test.go:31: got "a b", want "a"
--- FAIL: TestParse (0.00s)
    --- FAIL: TestParse/unicode_space (0.00s)
--- PASS: TestLex (0.00s)
FAIL
FAIL\tgithub.com/acme/tokenizer/parse\t0.012s
ok  \tgithub.com/acme/tokenizer/lex\t0.004s
FAIL"""

VITEST = f"""
 RUN  v2.1.4 /work/web

{noise(" ✓ src/utils.test.ts > formats dates")}
 ❯ src/cart.test.ts (5 tests | 2 failed) 14ms
   × cart > adds a line 6ms
     → expected 2 to be 3
   × cart > removes a line 2ms
     → expected [] to have a length of 1

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/cart.test.ts > cart > adds a line
AssertionError: expected 2 to be 3 // Object.is equality
 FAIL  src/cart.test.ts > cart > removes a line
AssertionError: expected [] to have a length of 1 but got +0

 Test Files  1 failed | 11 passed (12)
      Tests  2 failed | 61 passed (63)
   Start at  10:21:07
   Duration  1.32s"""

JEST = f"""{noise("PASS src/utils.test.js")}
FAIL src/cart.test.js
  cart
    ✓ starts empty (2 ms)
    ✕ adds a line (4 ms)

  ● cart › adds a line

    expect(received).toBe(expected) // Object.is equality

    Expected: 3
    Received: 2

Test Suites: 1 failed, 11 passed, 12 total
Tests:       1 failed, 62 passed, 63 total
Snapshots:   0 total
Time:        2.114 s
Ran all test suites."""

GRADLE = f"""> Task :compileJava UP-TO-DATE
> Task :processResources NO-SOURCE
{noise("> Task :app:classes")}
> Task :app:test

CartTest > addsALine() FAILED
    org.opentest4j.AssertionFailedError at CartTest.java:21

CartTest > removesALine() FAILED
    java.lang.NullPointerException at CartTest.java:30

12 tests completed, 2 failed

> Task :app:test FAILED

FAILURE: Build failed with an exception.

BUILD FAILED in 4s
3 actionable tasks: 1 executed, 2 up-to-date"""

MAVEN = f"""[INFO] Scanning for projects...
[INFO] --------------------------< com.acme:cart >---------------------------
{noise("[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/x.jar")}
[INFO] -------------------------------------------------------
[INFO]  T E S T S
[INFO] -------------------------------------------------------
[INFO] Running com.acme.CartTest
[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE!
[ERROR] com.acme.CartTest.addsALine -- Time elapsed: 0.01 s <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <3> but was: <2>
\tat org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
\tat com.acme.CartTest.addsALine(CartTest.java:12)
[INFO]
[INFO] Results:
[INFO]
[ERROR] Failures:
[ERROR]   CartTest.addsALine:12 expected: <3> but was: <2>
[INFO]
[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 0
[INFO]
[INFO] ------------------------------------------------------------------------
[INFO] BUILD FAILURE
[INFO] ------------------------------------------------------------------------
[INFO] Total time:  3.201 s
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test"""

CTEST = f"""Test project /work/build
{noise("      Start  1: lexer_basic")}
1/6 Test #1: lexer_basic ......................   Passed    0.01 sec
5/6 Test #5: parser_unicode ...................***Failed    0.02 sec
6/6 Test #6: parser_timeout ...................***Timeout  10.00 sec

67% tests passed, 2 tests failed out of 6

Total Test time (real) =  10.05 sec

The following tests FAILED:
\t  5 - parser_unicode (Failed)
\t  6 - parser_timeout (Timeout)
Errors while running CTest"""

RSPEC = f"""{noise("Cart#add")}
Failures:

  1) Cart#add adds a line
     Failure/Error: expect(cart.lines.size).to eq(3)

       expected: 3
            got: 2
     # ./spec/cart_spec.rb:12:in `block (3 levels) in <top (required)>'

Finished in 0.04 seconds (files took 0.2 seconds to load)
31 examples, 1 failure

Failed examples:

rspec ./spec/cart_spec.rb:12 # Cart#add adds a line"""

PASSING_PYTEST = f"""{noise("tests/test_many.py .........................")}
============================= 214 passed in 9.02s ============================="""

PASSING_GO = f"""{noise("=== RUN   TestLex")}
PASS
ok  \tgithub.com/acme/tokenizer/lex\t0.004s"""

PASSING_CARGO = f"""{noise("test tests::passes ... ok")}

test result: ok. 32 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s"""

PASSING_MAVEN = f"""{noise("[INFO] Running com.acme.CartTest")}
[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0
[INFO] BUILD SUCCESS
[INFO] Total time:  3.201 s"""

PASSING_GRADLE = f"""{noise("> Task :app:classes")}

BUILD SUCCESSFUL in 4s
3 actionable tasks: 3 executed"""

PASSING_CTEST = f"""{noise("      Start  1: lexer_basic")}
100% tests passed, 0 tests failed out of 6

Total Test time (real) =   0.05 sec"""

CASES = {
    "pytest": (
        PYTEST,
        [
            "FAILED tests/payments/test_refund.py::test_partial",
            "FAILED tests/payments/test_refund.py::test_full[eur]",
            "ERROR tests/payments/test_mock.py::test_clock",
            "2 failed, 211 passed, 1 error",
        ],
    ),
    "unittest": (
        UNITTEST,
        ["FAIL: test_parse (tests.test_tokenizer.TokenizerTest.test_parse)", "FAILED (failures=1)"],
    ),
    "cargo": (
        CARGO,
        [
            "failures:\n    tests::keeps_quotes\n    tests::splits_on_unicode_space",
            "test result: FAILED. 30 passed; 2 failed",
            "test tests::splits_on_unicode_space ... FAILED",
        ],
    ),
    "go": (
        GO,
        [
            "--- FAIL: TestParse (0.00s)",
            "    --- FAIL: TestParse/unicode_space (0.00s)",
            "FAIL\tgithub.com/acme/tokenizer/parse\t0.012s",
            "ok  \tgithub.com/acme/tokenizer/lex",
        ],
    ),
    "vitest": (
        VITEST,
        [
            " FAIL  src/cart.test.ts > cart > adds a line",
            " FAIL  src/cart.test.ts > cart > removes a line",
            "× cart > adds a line",
            "Tests  2 failed | 61 passed (63)",
        ],
    ),
    "jest": (
        JEST,
        [
            "FAIL src/cart.test.js",
            "✕ adds a line",
            "● cart › adds a line",
            "Tests:       1 failed, 62 passed",
        ],
    ),
    "gradle": (
        GRADLE,
        ["CartTest > addsALine() FAILED", "CartTest > removesALine() FAILED", "BUILD FAILED in 4s"],
    ),
    "maven": (
        MAVEN,
        [
            "[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 0, Time elapsed",
            "[ERROR] com.acme.CartTest.addsALine -- Time elapsed: 0.01 s <<< FAILURE!",
            "[ERROR]   CartTest.addsALine:12 expected: <3> but was: <2>",
            "[INFO] BUILD FAILURE",
        ],
    ),
    "ctest": (
        CTEST,
        [
            "The following tests FAILED:",
            "5 - parser_unicode (Failed)",
            "6 - parser_timeout (Timeout)",
            "67% tests passed",
        ],
    ),
    "rspec": (RSPEC, ["rspec ./spec/cart_spec.rb:12 # Cart#add adds a line", "31 examples, 1 failure"]),
    "pytest passing": (PASSING_PYTEST, ["214 passed in 9.02s"]),
    "go passing": (PASSING_GO, ["ok  \tgithub.com/acme/tokenizer/lex\t0.004s"]),
    "cargo passing": (PASSING_CARGO, ["test result: ok. 32 passed"]),
    "maven passing": (PASSING_MAVEN, ["Tests run: 4, Failures: 0", "[INFO] BUILD SUCCESS"]),
    "gradle passing": (PASSING_GRADLE, ["BUILD SUCCESSFUL in 4s"]),
    "ctest passing": (PASSING_CTEST, ["100% tests passed, 0 tests failed out of 6"]),
}


def bash_result(output: str, error: bool) -> dict:
    content = [{"type": "tool_result", "tool_use_id": "b1", "content": output, "is_error": error}]
    return {"type": "user", "message": {"role": "user", "content": content}}


@pytest.mark.parametrize("runner", sorted(CASES))
def test_a_test_runs_verdict_survives_the_trim(runner: str) -> None:
    # Given a long test run whose verdict is past the first 500 characters
    output, verdicts = CASES[runner]
    assert all(output.find(verdict) > transcript.MAX_RESULT_CHARS for verdict in verdicts)

    # When its result is rendered
    text = transcript.render(harness.CLAUDE_CODE, bash_result(output, "pass" not in runner), {}).text

    # Then the head is kept, a marker says what was skipped, and the verdict lines follow it
    head = output.strip()[: transcript.MAX_RESULT_CHARS].rstrip()
    assert text.startswith(("Result: " if "pass" in runner else "Result (error): ") + head + " … [+")
    assert "chars; verdict lines follow]\n" in text
    for verdict in verdicts:
        assert verdict in text, verdict
    # And ordinary output is not kept, and the whole stays short
    assert UNRELATED not in text
    assert len(text) < transcript.MAX_RESULT_CHARS + transcript.MAX_VERDICT_CHARS + 400
    # And the output's last line closes it
    last = [line for line in output.splitlines() if line.strip()][-1].rstrip()
    assert text.endswith(last + "\n\n")


def test_the_last_verdict_lines_are_preferred_when_there_are_too_many() -> None:
    failures = "\n".join(f"FAILED tests/test_big.py::test_case_{n} - AssertionError: x" for n in range(200))
    output = f"{noise('collecting')}\n{failures}\n=========== 200 failed in 3.2s ==========="

    text = transcript.render(harness.CLAUDE_CODE, bash_result(output, True), {}).text

    assert "test_case_199 " in text and "200 failed in 3.2s" in text
    assert "test_case_0 " not in text
    assert len(text) < transcript.MAX_RESULT_CHARS + transcript.MAX_VERDICT_CHARS + 400


def test_other_long_output_keeps_its_head_and_last_line() -> None:
    output = "\n".join(f"line {n} of the file" for n in range(100))

    text = transcript.render(harness.CLAUDE_CODE, bash_result(output, False), {}).text

    assert "… [+" in text and "chars; last line follows]\nline 99 of the file\n\n" in text
    assert "line 50 of the file" not in text
    # One long line has no lines past the head: only the marker
    long_line = "x" * 2000
    assert transcript.render(harness.CLAUDE_CODE, bash_result(long_line, False), {}).text.endswith(
        "… [+1500 chars]\n\n"
    )


def test_a_subagents_report_is_kept_whole_not_trimmed() -> None:
    report = "## Findings\n" + "\n".join(f"- finding {n}: the tokenizer splits on NBSP" for n in range(60))
    call = {"type": "tool_use", "id": "a1", "name": "Task", "input": {"description": "find the bug"}}
    records = [
        {"type": "assistant", "message": {"role": "assistant", "content": [call]}},
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "a1", "content": report}],
            },
        },
    ]

    text = transcript.render_all(harness.CLAUDE_CODE, records)

    assert f"Result: {report}\n\n" in text


def test_other_harnesses_results_are_trimmed_the_same_way() -> None:
    output = {
        "type": "response_item",
        "payload": {"type": "function_call_output", "call_id": "c1", "output": PYTEST},
    }

    text = transcript.render(harness.CODEX, output, {}).text

    assert "FAILED tests/payments/test_refund.py::test_partial" in text and UNRELATED not in text


def test_a_huge_or_pathological_result_is_trimmed_quickly() -> None:
    import time

    many_arrows = ("a > " * 250 + "\n") * 400  # no line ends in FAILED: gradle's pattern must stay linear
    huge_line = "x" * 600 + "\n" + "a > b " * 200_000  # one 1.2 MB line: not scanned at all
    started = time.perf_counter()
    for output in (many_arrows, huge_line):
        text = transcript.trim_result(output)
        assert "chars; last line follows]" in text and len(text) < 1_000
    assert time.perf_counter() - started < 1.0
