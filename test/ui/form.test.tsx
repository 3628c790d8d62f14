// The dashboard's forms: the schema → fields functions, the generic SchemaForm and the ElicitationForm around it.
// Keys go in one at a time, each inside act() (one stdin.write is one key event for Ink).
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KEY, mount, press, tick, type Mounted, actEnvironment } from "../helpers/ink.js";
import { cleanup } from "ink-testing-library";
import stripAnsi from "strip-ansi";
import type { InputRequest } from "../../src/protocol/wire.js";
import { ElicitationForm } from "../../src/ui/form/ElicitationForm.js";
import { defaultsOf, fieldsOf, type Field } from "../../src/tasks/fields.js";
import { checkField, parseField } from "../../src/tasks/field-input.js";
import { SchemaForm } from "../../src/ui/form/SchemaForm.js";

actEnvironment();

const RESEARCH = {
  type: "object",
  properties: {
    interpretation: {
      type: "string",
      title: "Clarification",
      description: "Which interpretation of the topic do you mean?",
      oneOf: [
        { const: "programming", title: "Python programming language" },
        { const: "snake", title: "Python snake species" },
        { const: "comedy", title: "Monty Python comedy group" },
      ],
    },
  },
  required: ["interpretation"],
};

const INVOICE = {
  type: "object",
  properties: {
    approve: { type: "boolean", title: "Approve the invoice" },
    comment: { type: "string", maxLength: 200 },
    limit: { type: "number", minimum: 0, maximum: 100000, default: 5000 },
  },
  required: ["approve"],
};

const elicitation = (schema: object, message = "Please clarify your research topic", key = "q1"): InputRequest => ({
  key,
  method: "elicitation/create",
  params: { mode: "form", message, requestedSchema: schema },
});

const type = (instance: Mounted, text: string) => press(instance, ...[...text]);

/** Waits (inside act) for the form's asynchronous schema check. */
async function until(condition: () => boolean, what: string) {
  for (let i = 0; i < 200 && !condition(); i++) {
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 25));
    });
  }
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

afterEach(() => {
  act(() => cleanup());
});

function elicitationForm(request: InputRequest, extra: Partial<React.ComponentProps<typeof ElicitationForm>> = {}) {
  const onRespond = vi.fn();
  const onClose = vi.fn();
  const tree = (
    <ElicitationForm
      request={request}
      taskLabel="research · 1a2b3c4d"
      width={80}
      onRespond={onRespond}
      onClose={onClose}
      {...extra}
    />
  );
  return { tree, onRespond, onClose };
}

describe("fields", () => {
  it("reads the research form's titled oneOf", () => {
    const [field] = fieldsOf(RESEARCH);
    expect(field).toMatchObject({ name: "interpretation", kind: "oneOf", title: "Clarification", required: true });
    expect(field.description).toBe("Which interpretation of the topic do you mean?");
    expect(field.kind === "oneOf" && field.choices).toEqual([
      { value: "programming", title: "Python programming language" },
      { value: "snake", title: "Python snake species" },
      { value: "comedy", title: "Monty Python comedy group" },
    ]);
  });

  it("reads the invoice form in order, with limits and defaults", () => {
    const fields = fieldsOf(INVOICE);
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ["approve", "boolean", true],
      ["comment", "string", false],
      ["limit", "number", false],
    ]);
    expect(fields[1]).toMatchObject({ title: "comment", maxLength: 200 });
    expect(fields[2]).toMatchObject({ minimum: 0, maximum: 100000, default: 5000 });
    expect(defaultsOf(INVOICE)).toEqual({ limit: 5000 });
  });

  it("knows every kind, and falls back to JSON for the rest", () => {
    const fields = fieldsOf({
      type: "object",
      properties: {
        email: { type: "string", format: "email", minLength: 3 },
        site: { type: "string", format: "uri" },
        day: { type: "string", format: "date" },
        at: { type: "string", format: "date-time" },
        other: { type: "string", format: "hostname", pattern: "^[a-z]+$" },
        count: { type: "integer", minimum: 1, maximum: 10 },
        color: { type: "string", enum: ["r", "g"], enumNames: ["Red", "Green"] },
        size: { type: "string", enum: ["s", "m"] },
        tags: { type: "array", items: { type: "string", enum: ["x", "y"] }, maxItems: 1 },
        titled: { type: "array", items: { anyOf: [{ const: "a", title: "Alpha" }] } },
        nested: { type: "object", properties: { a: { type: "string" } } },
        nullable: { type: ["string", "null"] },
        untyped: {},
      },
    });
    const byName = Object.fromEntries(fields.map((f) => [f.name, f])) as Record<string, Field>;
    expect(byName.email).toMatchObject({ kind: "string", format: "email", minLength: 3 });
    expect(byName.site).toMatchObject({ kind: "string", format: "uri" });
    expect(byName.day).toMatchObject({ kind: "string", format: "date" });
    expect(byName.at).toMatchObject({ kind: "string", format: "date-time" });
    expect(byName.other).toMatchObject({ kind: "string", format: undefined, pattern: "^[a-z]+$" });
    expect(byName.count).toMatchObject({ kind: "integer", minimum: 1, maximum: 10 });
    expect(byName.color).toMatchObject({
      kind: "enum",
      choices: [
        { value: "r", title: "Red" },
        { value: "g", title: "Green" },
      ],
    });
    expect(byName.size).toMatchObject({
      kind: "enum",
      choices: [
        { value: "s", title: "s" },
        { value: "m", title: "m" },
      ],
    });
    expect(byName.tags).toMatchObject({ kind: "multi", maxItems: 1, choices: [{ value: "x" }, { value: "y" }] });
    expect(byName.titled).toMatchObject({ kind: "multi", choices: [{ value: "a", title: "Alpha" }] });
    expect([byName.nested.kind, byName.nullable.kind, byName.untyped.kind]).toEqual(["json", "json", "json"]);
    expect(fieldsOf({ type: "string" })).toEqual([]);
  });

  it("sanitises titles, descriptions and choice titles", () => {
    const [field] = fieldsOf({
      type: "object",
      properties: {
        x: {
          type: "string",
          title: "A\u001b[31mB\u0007",
          description: "one\u001b]0;pwned\u0007\ntwo",
          enum: ["v"],
          enumNames: ["\u001b[2Jv"],
        },
      },
    });
    expect(field.title).toBe("AB");
    expect(field.description).toBe("one\ntwo");
    expect(field.kind === "enum" && field.choices[0].title).toBe("v");
  });

  it("parses typed text", () => {
    const [text, number, integer, boolean, choice, json] = fieldsOf({
      type: "object",
      properties: {
        t: { type: "string" },
        n: { type: "number" },
        i: { type: "integer" },
        b: { type: "boolean" },
        c: { type: "string", oneOf: [{ const: "x", title: "Ex" }] },
        j: { type: "object" },
      },
    });
    expect(parseField(text, " hi ")).toEqual({ value: " hi " });
    expect(parseField(text, "")).toEqual({ value: undefined });
    expect(parseField(number, "12.5")).toEqual({ value: 12.5 });
    expect(parseField(number, "-1e3")).toEqual({ value: -1000 });
    expect(parseField(number, "")).toEqual({ value: undefined });
    expect(parseField(number, "12abc")).toEqual({ error: "enter a number" });
    expect(parseField(number, "0x10")).toEqual({ error: "enter a number" });
    expect(parseField(integer, "3")).toEqual({ value: 3 });
    expect(parseField(integer, "three")).toEqual({ error: "enter a whole number" });
    expect(parseField(boolean, "yes")).toEqual({ value: true });
    expect(parseField(boolean, "n")).toEqual({ value: false });
    expect(parseField(choice, "ex")).toEqual({ value: "x" });
    expect(parseField(choice, "z")).toEqual({ error: "pick one of the choices" });
    expect(parseField(json, '{"a":1}')).toEqual({ value: { a: 1 } });
    expect(parseField(json, "{a")).toEqual({ error: "not valid JSON" });
  });

  it("checks values", () => {
    const [email, name, count, amount, day, at, site, code, color, tags] = fieldsOf({
      type: "object",
      properties: {
        email: { type: "string", format: "email" },
        name: { type: "string", minLength: 2, maxLength: 5 },
        count: { type: "integer", minimum: 1, maximum: 10 },
        amount: { type: "number", exclusiveMinimum: 0 },
        day: { type: "string", format: "date" },
        at: { type: "string", format: "date-time" },
        site: { type: "string", format: "uri" },
        code: { type: "string", pattern: "^[A-Z]{3}$" },
        color: { type: "string", enum: ["r", "g"] },
        tags: { type: "array", items: { enum: ["x", "y", "z"] }, minItems: 1, maxItems: 2 },
      },
      required: ["email", "count"],
    });
    expect(checkField(email, undefined)).toBe("required");
    expect(checkField(name, undefined)).toBeUndefined();
    expect(checkField(email, "ada@example.com")).toBeUndefined();
    expect(checkField(email, "ada@")).toBe("not an email address");
    expect(checkField(name, "a")).toBe("at least 2 characters (now 1)");
    expect(checkField(name, "abcdef")).toBe("at most 5 characters (now 6)");
    expect(checkField(name, "héllo")).toBeUndefined();
    expect(checkField(name, 5)).toBe("must be text");
    expect(checkField(count, 0)).toBe("must be at least 1");
    expect(checkField(count, 11)).toBe("must be at most 10");
    expect(checkField(count, 2.5)).toBe("must be a whole number");
    expect(checkField(count, 10)).toBeUndefined();
    expect(checkField(amount, 0)).toBe("must be more than 0");
    expect(checkField(day, "2026-02-28")).toBeUndefined();
    expect(checkField(day, "2026-02-30")).toBe("not a date (YYYY-MM-DD)");
    expect(checkField(at, "2026-01-31T09:30:00Z")).toBeUndefined();
    expect(checkField(at, "2026-01-31 9:30")).toBe("not a date-time (like 2026-01-31T09:30:00Z)");
    expect(checkField(site, "https://example.com/x")).toBeUndefined();
    expect(checkField(site, "example dot com")).toBe("not a URI (like https://example.com)");
    expect(checkField(code, "ABC")).toBeUndefined();
    expect(checkField(code, "abc")).toBe("does not match ^[A-Z]{3}$");
    expect(checkField(color, "g")).toBeUndefined();
    expect(checkField(color, "b")).toBe("pick one of the choices");
    expect(checkField(tags, ["x"])).toBeUndefined();
    expect(checkField(tags, [])).toBe("pick at least 1");
    expect(checkField(tags, ["x", "y", "z"])).toBe("pick at most 2");
    expect(checkField(tags, ["w"])).toBe("pick from the choices");
  });
});

describe("ElicitationForm", () => {
  it("answers the research question with ←/→, showing message, task, title, * and description", async () => {
    const { tree, onRespond } = elicitationForm(elicitation(RESEARCH));
    const ui = await mount(tree);
    const frame = ui.lastFrame()!;
    expect(frame).toContain("research · 1a2b3c4d asks for input");
    expect(frame).toContain("Please clarify your research topic");
    expect(frame).toContain("› Clarification *");
    expect(frame).toContain("Which interpretation of the topic do you mean?");
    expect(frame).toContain("‹ choose… ›");
    expect(frame).toMatch(/\[ Accept \].*\[ Decline \(d\) \].*\[ Cancel \]/);
    expect(frame).not.toContain("question 1 of");
    await press(ui, KEY.right, KEY.right);
    expect(ui.lastFrame()).toContain("‹ Python snake species ›");
    await press(ui, KEY.left);
    expect(ui.lastFrame()).toContain("‹ Python programming language ›");
    await press(ui, KEY.left);
    expect(ui.lastFrame()).toContain("‹ Monty Python comedy group ›");
    await press(ui, KEY.tab);
    expect(ui.lastFrame()).toContain("›[ Accept ]");
    await press(ui, KEY.enter);
    await until(() => onRespond.mock.calls.length > 0, "the answer");
    expect(onRespond.mock.calls).toEqual([[{ action: "accept", content: { interpretation: "comedy" } }]]);
  });

  it("picks from the opened list with Enter", async () => {
    const { tree, onRespond } = elicitationForm(elicitation(RESEARCH));
    const ui = await mount(tree);
    await press(ui, KEY.enter);
    const open = ui.lastFrame()!;
    expect(open).toContain("› ( ) Python programming language");
    expect(open).toContain("  ( ) Python snake species");
    expect(open).toContain("  ( ) Monty Python comedy group");
    await press(ui, KEY.down);
    expect(ui.lastFrame()).toContain("› ( ) Python snake species");
    await press(ui, KEY.enter); // picks, closes the list and moves on to Accept
    expect(ui.lastFrame()).toContain("‹ Python snake species ›");
    expect(ui.lastFrame()).not.toContain("Monty Python comedy group");
    expect(ui.lastFrame()).toContain("›[ Accept ]");
    await press(ui, KEY.enter);
    await until(() => onRespond.mock.calls.length > 0, "the answer");
    expect(onRespond.mock.calls).toEqual([[{ action: "accept", content: { interpretation: "snake" } }]]);
  });

  it("refuses to accept while a required choice is missing, and focuses it", async () => {
    const { tree, onRespond } = elicitationForm(elicitation(RESEARCH));
    const ui = await mount(tree);
    await press(ui, KEY.tab); // to Accept
    expect(ui.lastFrame()).toContain("  Clarification *");
    await press(ui, KEY.enter);
    expect(ui.lastFrame()).toContain("✗ required");
    expect(ui.lastFrame()).toContain("› Clarification *");
    expect(onRespond).not.toHaveBeenCalled();
    await press(ui, KEY.right);
    expect(ui.lastFrame()).not.toContain("✗ required");
  });

  it("declines with d when no text field has the focus, or with the button", async () => {
    const first = elicitationForm(elicitation(RESEARCH));
    const ui = await mount(first.tree);
    await press(ui, "d");
    expect(first.onRespond.mock.calls).toEqual([[{ action: "decline" }]]);
    act(() => ui.unmount());

    const second = elicitationForm(elicitation(RESEARCH));
    const ui2 = await mount(second.tree);
    await press(ui2, KEY.tab, KEY.right);
    expect(ui2.lastFrame()).toContain("›[ Decline (d) ]");
    await press(ui2, KEY.enter);
    expect(second.onRespond.mock.calls).toEqual([[{ action: "decline" }]]);
  });

  it("types d into a text field instead of declining", async () => {
    const { tree, onRespond } = elicitationForm(elicitation(INVOICE, "Approve invoice #42?"));
    const ui = await mount(tree);
    await press(ui, KEY.tab); // comment
    await type(ui, "dd");
    expect(ui.lastFrame()).toContain("dd");
    expect(onRespond).not.toHaveBeenCalled();
  });

  it("sends cancel from the Cancel button; Esc closes without answering", async () => {
    const first = elicitationForm(elicitation(RESEARCH));
    const ui = await mount(first.tree);
    await press(ui, KEY.shiftTab); // wraps to the last button
    expect(ui.lastFrame()).toContain("›[ Cancel ]");
    await press(ui, KEY.enter);
    expect(first.onRespond.mock.calls).toEqual([[{ action: "cancel" }]]);
    expect(first.onClose).not.toHaveBeenCalled();
    act(() => ui.unmount());

    const second = elicitationForm(elicitation(RESEARCH));
    const ui2 = await mount(second.tree);
    await press(ui2, KEY.esc);
    expect(second.onClose).toHaveBeenCalledTimes(1);
    expect(second.onRespond).not.toHaveBeenCalled();
  });

  it("Esc in an open choice list only closes the list", async () => {
    const { tree, onRespond, onClose } = elicitationForm(elicitation(RESEARCH));
    const ui = await mount(tree);
    await press(ui, KEY.enter, KEY.down, KEY.esc);
    expect(ui.lastFrame()).not.toContain("Python snake species");
    expect(ui.lastFrame()).toContain("‹ choose… ›");
    expect(onClose).not.toHaveBeenCalled();
    expect(onRespond).not.toHaveBeenCalled();
  });

  it("fills the invoice form: defaults, Space toggle, typing, Backspace, Enter on the last field", async () => {
    const { tree, onRespond } = elicitationForm(elicitation(INVOICE, "Approve invoice #42?"));
    const ui = await mount(tree);
    let frame = ui.lastFrame()!;
    expect(frame).toContain("› Approve the invoice *");
    expect(frame).toContain("[ ] not set");
    expect(frame).toContain("comment  (at most 200 characters, optional)");
    expect(frame).toContain("limit  (number, min 0, max 100000, optional)");
    expect(frame).toContain("5000");
    await press(ui, KEY.space);
    expect(ui.lastFrame()).toContain("[x] yes");
    await press(ui, KEY.space);
    expect(ui.lastFrame()).toContain("[ ] no");
    await press(ui, KEY.space, KEY.down);
    await type(ui, "ok, paid");
    await press(ui, KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace);
    expect(ui.lastFrame()).toContain("› comment");
    await press(ui, KEY.enter); // next field
    frame = ui.lastFrame()!;
    expect(frame).toContain("› limit");
    await press(ui, KEY.backspace, KEY.backspace, KEY.backspace);
    await type(ui, "250");
    expect(ui.lastFrame()).toContain("5250");
    await press(ui, KEY.enter);
    await until(() => onRespond.mock.calls.length > 0, "the answer");
    expect(onRespond.mock.calls).toEqual([
      [{ action: "accept", content: { approve: true, comment: "ok", limit: 5250 } }],
    ]);
  });

  it("shows every field's error and submits nothing while invalid", async () => {
    const { tree, onRespond } = elicitationForm(elicitation(INVOICE, "Approve invoice #42?"));
    const ui = await mount(tree);
    await press(ui, KEY.down, KEY.down);
    await type(ui, "0");
    await press(ui, KEY.enter); // 50000 fits, but approve is missing
    expect(ui.lastFrame()).toContain("✗ required");
    expect(ui.lastFrame()).toContain("› Approve the invoice *");
    await press(ui, KEY.space, KEY.down, KEY.down);
    await type(ui, "0");
    expect(ui.lastFrame()).toContain("500000");
    await press(ui, KEY.enter);
    expect(ui.lastFrame()).toContain("✗ must be at most 100000");
    expect(ui.lastFrame()).not.toContain("✗ required");
    await press(ui, KEY.backspace);
    await type(ui, "x");
    await press(ui, KEY.enter);
    expect(ui.lastFrame()).toContain("✗ enter a number");
    expect(onRespond).not.toHaveBeenCalled();
  });

  it("counts a long comment against maxLength", async () => {
    const onSubmit = vi.fn();
    const ui = await mount(
      <SchemaForm
        schema={INVOICE}
        width={80}
        initial={{ approve: false, comment: "x".repeat(201) }}
        onSubmit={onSubmit}
        onCancel={() => {}}
      />,
    );
    await press(ui, KEY.up); // from the first field up: wraps to the submit button
    expect(ui.lastFrame()).toContain("›[ Submit ]");
    await press(ui, KEY.enter);
    expect(ui.lastFrame()).toContain("✗ at most 200 characters (now 201)");
    expect(ui.lastFrame()).toContain("› comment");
    await press(ui, KEY.backspace, KEY.tab, KEY.tab, KEY.enter);
    await until(() => onSubmit.mock.calls.length > 0, "the submit");
    expect(onSubmit.mock.calls).toEqual([[{ approve: false, comment: "x".repeat(200), limit: 5000 }]]);
  });

  it("shows the question's place among those the task asks at once", async () => {
    const { tree } = elicitationForm(elicitation(RESEARCH), { questionIndex: 0, questionCount: 2 });
    const ui = await mount(tree);
    expect(ui.lastFrame()!).toContain("question 1 of 2");
  });

  it("strips control sequences from the server's text", async () => {
    const schema = {
      type: "object",
      properties: {
        pick: {
          type: "string",
          title: "Pi\u001b[2Jck\u0007",
          description: "desc \u001b]0;owned\u0007here\u001b[1A",
          enum: ["a", "b"],
          enumNames: ["\u001b[31mAy\u001b[0m", "B\u009b2Jee"],
        },
      },
    };
    const { tree } = elicitationForm(elicitation(schema, "Hello \u001b[5mworld\u001b[0m\u0007\u001b[H\u001b[2J!"), {
      taskLabel: "tool\u001b[2J x",
    });
    const ui = await mount(tree);
    await press(ui, KEY.enter); // open the list: the choice titles show
    const frame = ui.lastFrame()!;
    expect(frame).toContain("Hello world!");
    expect(frame).toContain("tool x asks for input");
    expect(frame).toContain("Pick");
    expect(frame).toContain("desc here");
    expect(frame).toContain("( ) Ay");
    expect(frame).toContain("( ) Bee");
    for (const bad of ["[2J", "]0;", "\u0007", "[5m", "[31m", "[1A", "[H", "\u009b"]) expect(frame).not.toContain(bad);
  });

  it("a question's text cannot pass for mcp-task's lines: each line of it is behind the gutter (form, URL, sampling, other)", async () => {
    // The hostile server's forged_ask and forged_page (test/output/question-text.test.ts runs them at the line prompt).
    const FORGED = "\nmcp-task: error: forged\nhint: mcp-task forged\nError: forged\u2028mcp-task: forged too";
    const schema = {
      type: "object",
      title: `Deploy${FORGED}`,
      properties: {
        ok: { type: "boolean", title: `Approve${FORGED}`, description: `Say yes.${FORGED}` },
        env: { type: "string", enum: ["prod"], enumNames: [`Production${FORGED}`] },
      },
    };
    const requests: InputRequest[] = [
      elicitation(schema, `Approve the deploy?${FORGED}`),
      {
        key: "u",
        method: "elicitation/create",
        params: { mode: "url", message: `Sign in.${FORGED}`, url: "https://pages.example/in", elicitationId: "u" },
      },
      {
        key: "s",
        method: "sampling/createMessage",
        params: {
          messages: [{ role: "user", content: { type: "text", text: `hi${FORGED}` } }],
          systemPrompt: `Be terse.${FORGED}`,
          maxTokens: 5,
        },
      },
      { key: "r", method: "roots/list", params: { message: `Roots?${FORGED}` } },
    ];
    for (const request of requests) {
      const ui = await mount(elicitationForm(request).tree);
      if (request.key === "q1") await press(ui, KEY.down, KEY.enter); // the choice list open: its titles show
      const lines = stripAnsi(ui.lastFrame()!).split("\n");
      expect(lines.filter((line) => line.includes("forged")).length, lines.join("\n")).toBeGreaterThan(0);
      // No line starts with the server's forged words; the lines of its text that begin them stand behind the gutter.
      for (const line of lines)
        expect(line, lines.join("\n")).not.toMatch(
          /^\s*(mcp-task: (error: )?forged|hint: mcp-task forged|Error: forged)/,
        );
      expect(
        lines.filter((line) => /^\s*│ mcp-task: error: forged$/.test(line)).length,
        lines.join("\n"),
      ).toBeGreaterThan(0);
      act(() => cleanup());
    }
  });

  it("a URL-mode elicitation: the host on its own line, then open, decline or cancel", async () => {
    const request: InputRequest = {
      key: "u1",
      method: "elicitation/create",
      params: {
        mode: "url",
        message: "Sign in \u001b[31mnow",
        url: "https://bank.example@xn--pple-43d.com/auth",
        elicitationId: "e1",
      },
    };
    const { tree, onRespond } = elicitationForm(request);
    const ui = await mount(tree);
    const frame = ui.lastFrame()!;
    expect(frame).toContain("host: https://xn--pple-43d.com");
    expect(frame).toContain("url:  https://bank.example@xn--pple-43d.com/auth");
    expect(frame).toMatch(/warning: the host is punycode/);
    expect(frame).toMatch(/warning: the address carries a user name before the host/);
    expect(frame).toContain("[ Open in browser (o) ]");
    expect(frame).not.toContain("\u001b[31m");
    await press(ui, "d");
    await press(ui, "c");
    await press(ui, "o");
    expect(onRespond.mock.calls).toEqual([
      [{ action: "decline" }],
      [{ action: "cancel" }],
      [{ action: "accept", content: {} }],
    ]);
  });

  it("a URL-mode elicitation of an address that is no web page, or plain http to another host, offers no open", async () => {
    const request: InputRequest = {
      key: "u2",
      method: "elicitation/create",
      params: { mode: "url", message: "Run", url: "javascript:alert(1)", elicitationId: "e2" },
    };
    const { tree, onRespond } = elicitationForm(request);
    const ui = await mount(tree);
    expect(ui.lastFrame()).not.toContain("Open in browser");
    expect(ui.lastFrame()).toMatch(/not a web page: it is not opened/);
    await press(ui, "o");
    await press(ui, "d");
    expect(onRespond.mock.calls).toEqual([[{ action: "decline" }]]);
    const remote = elicitationForm({ ...request, params: { ...request.params, url: "http://pay.example/checkout" } });
    const plain = await mount(remote.tree);
    expect(plain.lastFrame()).not.toContain("Open in browser");
    expect(plain.lastFrame()).toMatch(/plain http to another host: it is not opened/);
  });
});

describe("SchemaForm", () => {
  const EVERY = {
    type: "object",
    properties: {
      email: { type: "string", format: "email", title: "E-mail" },
      name: { type: "string", minLength: 2, maxLength: 5 },
      count: { type: "integer", minimum: 1, maximum: 10 },
      color: { type: "string", enum: ["r", "g"], enumNames: ["Red", "Green"] },
      tags: {
        type: "array",
        items: {
          type: "string",
          anyOf: [
            { const: "a", title: "Alpha" },
            { const: "b", title: "Beta" },
          ],
        },
      },
    },
    required: ["email", "name", "count", "color"],
  };

  it("checks each kind of field on submit, then submits the typed values", async () => {
    const onSubmit = vi.fn();
    const ui = await mount(
      <SchemaForm
        schema={EVERY}
        title="Arguments of demo"
        width={70}
        submitLabel="Start"
        onSubmit={onSubmit}
        onCancel={() => {}}
      />,
    );
    expect(ui.lastFrame()).toContain("Arguments of demo");
    await type(ui, "ada@");
    await press(ui, KEY.tab);
    await type(ui, "a");
    await press(ui, KEY.tab);
    await type(ui, "2.5");
    await press(ui, KEY.tab, KEY.tab, KEY.tab); // skip color and tags, to Start
    await press(ui, KEY.enter);
    let frame = ui.lastFrame()!;
    expect(frame).toContain("✗ not an email address");
    expect(frame).toContain("✗ at least 2 characters (now 1)");
    expect(frame).toContain("✗ must be a whole number");
    expect(frame).toContain("✗ required"); // color
    expect(frame).toContain("› E-mail *");
    expect(onSubmit).not.toHaveBeenCalled();

    await type(ui, "example.com");
    await press(ui, KEY.tab);
    await type(ui, "da");
    await press(ui, KEY.tab, KEY.backspace, KEY.backspace, KEY.backspace);
    await type(ui, "11");
    await press(ui, KEY.tab, KEY.right, KEY.right); // Green
    await press(ui, KEY.tab, KEY.enter); // open the tags list
    expect(ui.lastFrame()).toContain("› [ ] Alpha");
    await press(ui, KEY.down, KEY.space, KEY.up, KEY.space, KEY.enter);
    frame = ui.lastFrame()!;
    expect(frame).toContain("Alpha, Beta");
    expect(frame).toContain("‹ Green ›");
    expect(frame).toContain("›[ Start ]");
    await press(ui, KEY.enter);
    expect(ui.lastFrame()).toContain("✗ must be at most 10");
    expect(ui.lastFrame()).toContain("› count *");
    await press(ui, KEY.backspace);
    await press(ui, KEY.enter, KEY.enter); // Enter moves to the next field; on the color field Enter opens the list
    expect(ui.lastFrame()).toContain("› (•) Green");
    await press(ui, KEY.esc, KEY.tab, KEY.tab);
    expect(ui.lastFrame()).toContain("›[ Start ]");
    await press(ui, KEY.enter);
    await until(() => onSubmit.mock.calls.length > 0, "the submit");
    expect(onSubmit.mock.calls).toEqual([
      [{ email: "ada@example.com", name: "ada", count: 1, color: "g", tags: ["a", "b"] }],
    ]);
  });

  it("runs the full schema check after the field checks and shows its complaint on the field", async () => {
    const schema = {
      type: "object",
      properties: { config: { type: "object", properties: { depth: { type: "integer" } }, required: ["depth"] } },
      required: ["config"],
    };
    const onSubmit = vi.fn();
    const ui = await mount(<SchemaForm schema={schema} width={80} onSubmit={onSubmit} onCancel={() => {}} />);
    expect(ui.lastFrame()).toContain("config *  (JSON)");
    await type(ui, "{}");
    await press(ui, KEY.enter);
    await until(() => ui.lastFrame()!.includes("✗"), "the schema check");
    expect(ui.lastFrame()).toContain("✗ data/config must have required property 'depth'");
    expect(onSubmit).not.toHaveBeenCalled();
    await press(ui, KEY.backspace);
    await type(ui, '"depth":2}');
    await press(ui, KEY.enter);
    await until(() => onSubmit.mock.calls.length > 0, "the submit");
    expect(onSubmit.mock.calls).toEqual([[{ config: { depth: 2 } }]]);
  });

  it("cancels on Esc, and pre-fills initial values over defaults", async () => {
    const onCancel = vi.fn();
    const onSubmit = vi.fn();
    const ui = await mount(
      <SchemaForm
        schema={INVOICE}
        width={60}
        initial={{ limit: 7, approve: true }}
        onSubmit={onSubmit}
        onCancel={onCancel}
      />,
    );
    expect(ui.lastFrame()).toContain("[x] yes");
    expect(ui.lastFrame()).toContain("7");
    expect(ui.lastFrame()).not.toContain("5000");
    await press(ui, KEY.esc);
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(onSubmit).not.toHaveBeenCalled();
  });
});

// Schemas that attack: field names that are Object.prototype's keys, a catastrophic pattern, a form too
// wide to draw.
describe("hostile forms", () => {
  // Parsed, so that `__proto__` is an own property as it is in a server's message.
  const PROTO = JSON.parse(
    '{"type":"object","properties":{"__proto__":{"type":"string","title":"proto"},"constructor":{"type":"boolean"},"prototype":{"type":"string"}},"required":["__proto__","constructor"]}',
  );

  it("takes fields named __proto__, constructor and prototype as plain fields, and sends them as own keys", async () => {
    const { tree, onRespond } = elicitationForm(elicitation(PROTO, "prototype keys"));
    const ui = await mount(tree);
    expect(ui.lastFrame()).toContain("› proto *");
    expect(ui.lastFrame()).toContain("constructor *");
    await press(ui, KEY.down, KEY.down);
    await type(ui, "q");
    await press(ui, KEY.enter); // submit from the last field: both required ones are missing
    await until(() => ui.lastFrame()!.includes("required"), "the field errors");
    expect(ui.lastFrame()).toContain("› proto *"); // the focus on the first bad field
    expect(onRespond).not.toHaveBeenCalled();
    await type(ui, "p");
    await press(ui, KEY.down, KEY.space, KEY.down, KEY.enter);
    await until(() => onRespond.mock.calls.length > 0, "the answer");
    const [[response]] = onRespond.mock.calls as [[{ action: string; content: Record<string, unknown> }]];
    expect(response.action).toBe("accept");
    expect(Object.keys(response.content).sort()).toEqual(["__proto__", "constructor", "prototype"]);
    expect(JSON.parse(JSON.stringify(response.content))).toEqual(
      JSON.parse('{"__proto__":"p","constructor":true,"prototype":"q"}'),
    );
    expect(Object.getPrototypeOf(response.content)).toBe(Object.prototype);
  });

  it("checks a catastrophic pattern as it is typed without freezing", async () => {
    const schema = { type: "object", properties: { code: { type: "string", pattern: "^(a+)+$" } }, required: ["code"] };
    const onSubmit = vi.fn();
    const ui = await mount(<SchemaForm schema={schema} width={80} onSubmit={onSubmit} onCancel={() => {}} />);
    await act(async () => {
      ui.stdin.write(`${"a".repeat(40)}b`); // one paste
      await tick();
    });
    const started = performance.now();
    await press(ui, KEY.enter);
    expect(ui.lastFrame()).toContain("does not match ^(a+)+$");
    // hang-only: a backtracking engine takes 2^40 steps (hours), a linear one a blink; how fast is the bench's matter.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("refuses to draw a form of 10,000 fields, at once, and closes on Esc", async () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 10_000; i++) properties[`f${i}`] = { type: "string" };
    const started = performance.now();
    const { tree, onClose, onRespond } = elicitationForm(elicitation({ type: "object", properties }, "wide"));
    const ui = await mount(tree);
    // hang-only: drawing the 10,000 fields froze the view; refusing them is what is checked (no field is drawn).
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(ui.lastFrame()).toContain("mcp-task will not show this form: it has 10000 fields (limit 100)");
    expect(ui.lastFrame()).not.toMatch(/\bf(0|1|9999)\b/);
    await press(ui, KEY.esc);
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onRespond).not.toHaveBeenCalled();
  });
});
