// The dashboard's new-call picker lists a chosen server's tools once: the dashboard renders every second, each time
// with a new loadTools function, and an effect on that function had listed them again at every render.
import { act } from "react";
import { expect, it } from "vitest";
import { NewCall } from "../../src/ui/NewCall.js";
import { KEY, mount, press, tick } from "../helpers/ink.js";

it("lists a chosen server's tools once, however often the dashboard renders it", async () => {
  let listed = 0;
  const servers = [{ name: "api", descriptor: { transport: "http" as const, url: "http://127.0.0.1:1/mcp" } }];
  const picker = () => (
    <NewCall
      servers={servers}
      loadTools={async () => (listed++, [])}
      onStart={() => {}}
      onClose={() => {}}
      width={100}
      height={20}
    />
  );
  const view = await mount(picker());
  await press(view, KEY.enter);
  for (let i = 0; i < 5; i++)
    await act(async () => {
      view.rerender(picker());
      await tick();
    });
  expect(listed).toBe(1);
  view.unmount();
});
