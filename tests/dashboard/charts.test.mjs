// What the session strip and the checkpoint page say, without a browser: each mark at the prompt
// it came after, and a checkpoint's coverage said only with what is known (never "prompts ?–?").
import assert from "node:assert/strict";
import { test } from "node:test";

import { stripMarks } from "../../functions/dashboard/static/charts.js";
import { coverage } from "../../functions/dashboard/static/pages/checkpoint.js";

test("a compaction and a sub-agent sit at the prompt they followed, a /clear at the end", () => {
  const events = [
    { kind: "session_start" },
    { kind: "prompt", prompt: 1 },
    { kind: "prompt", prompt: 2 },
    { kind: "compaction" },
    { kind: "checkpoint", prompt: 2 },
    { kind: "prompt", prompt: 3 },
    { kind: "subagent_start" },
  ];

  const { marks, prompts } = stripMarks(events, "cleared");

  assert.equal(prompts, 3);
  assert.deepEqual(
    marks.map((m) => [m.kind, m.prompt]),
    [
      ["compaction", 2],
      ["checkpoint", 2],
      ["subagent_start", 3],
      ["clear", 3],
    ],
  );
});

test("a hand-off checkpoint is marked as a hand-off, at the prompt it covered", () => {
  const events = [
    { kind: "prompt", prompt: 1 },
    { kind: "checkpoint", prompt: 1, trigger: "periodic" },
    { kind: "prompt", prompt: 2 },
    { kind: "checkpoint", prompt: 2, trigger: "handoff" },
  ];

  const { marks } = stripMarks(events, "active");

  assert.deepEqual(
    marks.map((m) => [m.kind, m.prompt]),
    [
      ["checkpoint", 1],
      ["handoff", 2],
    ],
  );
});

test("a checkpoint's coverage names only the prompts it knows", () => {
  assert.equal(coverage({ prompt_count: 10, first_prompt: 1, last_prompt: 10 }), "prompts 1–10");
  assert.equal(coverage({ prompt_count: 1, first_prompt: 7, last_prompt: 7 }), "prompt 7");
  assert.equal(coverage({ prompt_count: 3, first_prompt: null, last_prompt: 12 }), "3 prompts, up to prompt 12");
  assert.equal(coverage({ prompt_count: 2, first_prompt: null, last_prompt: null }), "2 prompts covered");
  assert.equal(coverage({ prompt_count: 0, first_prompt: null, last_prompt: null }), "no new prompts covered");
});
