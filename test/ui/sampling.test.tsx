// A sampling request answered by a person in the Ink form (the live view's and the dashboard's: ElicitationForm
// dispatches it to SamplingReply): shown made safe, the reply written and sent as a CreateMessageResult, or declined.
import { cleanup } from "ink-testing-library";
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KEY, mount, press, actEnvironment } from "../helpers/ink.js";
import type { InputRequest } from "../../src/protocol/wire.js";
import { ElicitationForm } from "../../src/ui/form/ElicitationForm.js";
import { samplingLines } from "../../src/tasks/sampling.js";

actEnvironment();

afterEach(() => {
  act(() => cleanup());
});

/** Escape sequences a terminal would act on: none may reach the screen. */
const CONTROLS = ["[2J", "]0;", "\u0007", "[31m", "[1A", "\u009b", "\u202e"];

const HOSTILE: InputRequest = {
  key: "s1",
  method: "sampling/createMessage",
  params: {
    messages: [
      { role: "user", content: { type: "text", text: "Write a haiku\u001b[2J about \u001b]0;pwned\u0007tasks" } },
      { role: "assistant\u001b[31m", content: [{ type: "image", mimeType: "image/png", data: "A".repeat(4000) }] },
      { role: "user", content: { type: "text", text: "and \u202eagain\u001b[1A" } },
    ],
    systemPrompt: "Be\u009b2J terse",
    modelPreferences: { hints: [{ name: "claude\u001b[31m" }], costPriority: 0.2, intelligencePriority: 0.9 },
    maxTokens: 100,
    includeContext: "thisServer",
  },
};

function form(request: InputRequest) {
  const onRespond = vi.fn();
  const onClose = vi.fn();
  const tree = (
    <ElicitationForm request={request} taskLabel="sample · 1a2b" width={100} onRespond={onRespond} onClose={onClose} />
  );
  return { tree, onRespond, onClose };
}

describe("a sampling request in the Ink form", () => {
  it("shows every message, the system prompt and the preferences made safe; non-text content by type and size", async () => {
    const { tree } = form(HOSTILE);
    const ui = await mount(tree);
    const frame = ui.lastFrame()!;
    expect(frame).toContain("asks for a model's reply");
    expect(frame).toContain("user: Write a haiku about tasks");
    expect(frame).toContain("assistant: [image image/png, 2.9 KB]");
    expect(frame).toContain("user: and again");
    expect(frame).toContain("system prompt: Be terse");
    expect(frame).toContain("model hints: claude");
    expect(frame).toContain("priorities: cost 0.2, intelligence 0.9");
    expect(frame).toContain("at most 100 tokens");
    // (The details line wraps at the form's width: its next line behind the gutter too.)
    expect(frame).toMatch(/include\s+(│\s*)?context:/);
    for (const bad of CONTROLS) expect(frame).not.toContain(bad);
    // The line prompt's lines, from the same reading.
    for (const line of samplingLines(HOSTILE)) for (const bad of CONTROLS) expect(line).not.toContain(bad);
  });

  it("sends what the person writes as the model's reply (role assistant, model human, stopReason endTurn)", async () => {
    const { tree, onRespond } = form(HOSTILE);
    const ui = await mount(tree);
    await press(ui, KEY.enter);
    expect(onRespond).not.toHaveBeenCalled(); // nothing written yet
    expect(ui.lastFrame()).toContain("write a reply first");
    await press(ui, "Tasks wait, then", " finish!x", KEY.backspace);
    expect(ui.lastFrame()).toContain("› Tasks wait, then finish!");
    await press(ui, KEY.enter);
    expect(onRespond.mock.calls).toEqual([
      [
        {
          action: "accept",
          content: {
            role: "assistant",
            content: { type: "text", text: "Tasks wait, then finish!" },
            model: "human",
            stopReason: "endTurn",
          },
        },
      ],
    ]);
  });

  it("declines from the buttons (Tab, d); Esc closes without answering", async () => {
    const { tree, onRespond, onClose } = form(HOSTILE);
    const ui = await mount(tree);
    await press(ui, KEY.esc);
    expect(onClose).toHaveBeenCalledTimes(1);
    await press(ui, KEY.tab, "d");
    expect(onRespond.mock.calls).toEqual([[{ action: "decline" }]]);
  });

  it("a request that cannot be declined (2026-07-28) offers no Decline: d and Tab do not decline it", async () => {
    const { tree, onRespond } = form({ ...HOSTILE, declinable: false });
    const ui = await mount(tree);
    expect(ui.lastFrame()).not.toMatch(/Decline|d decline/);
    await press(ui, KEY.tab, "d", KEY.tab, KEY.tab, KEY.enter);
    expect(onRespond).not.toHaveBeenCalled();
    expect(ui.lastFrame()).toMatch(/write a reply first(?! \(or decline\))/);
  });
});
