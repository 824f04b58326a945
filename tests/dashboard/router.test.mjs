// The dashboard's router (functions/dashboard/static/router.js): a page left before it finished
// loading stops at once, and never takes the place of the page opened after it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createRouter } from "../../functions/dashboard/static/router.js";

/** A page that registers a cleanup, then waits for `loaded` (its first answer) before it is done. */
function slowPage(log, name) {
  let finish;
  const loaded = new Promise((resolve) => {
    finish = resolve;
  });
  const open = async (signal) => {
    signal.addEventListener("abort", () => log.push(`${name} cleaned up`));
    await loaded;
    log.push(`${name} loaded`);
  };
  return { open, finish };
}

test("a page left while it loads is cleaned up when the next opens, and the next page's cleanup survives", async () => {
  const router = createRouter();
  const log = [];
  const sessions = slowPage(log, "sessions");
  const search = slowPage(log, "search");

  const first = router.visit(sessions.open);
  const second = router.visit(search.open);
  assert.deepEqual(log, ["sessions cleaned up"]);

  search.finish();
  assert.equal(await second, true);
  sessions.finish(); // the slow page's answer comes after the next page is on screen
  assert.equal(await first, false);
  assert.deepEqual(log, ["sessions cleaned up", "search loaded", "sessions loaded"]);

  router.visit(async () => {});
  assert.deepEqual(log.slice(-1), ["search cleaned up"]);
});

test("a page is cleaned up once, and signing in leaves the page on screen", async () => {
  const router = createRouter();
  const log = [];
  const sessions = slowPage(log, "sessions");
  sessions.finish();
  assert.equal(await router.visit(sessions.open), true);

  router.leave();
  router.leave();
  await router.visit(async () => {});

  assert.deepEqual(log, ["sessions loaded", "sessions cleaned up"]);
});
