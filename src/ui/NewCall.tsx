// Starting a call from the dashboard: pick a server, pick a tool, fill its arguments (a form built from the
// tool's inputSchema), start.
import { Box, Text } from "ink";
import { useEffect, useRef, useState } from "react";
import { sanitizeLine } from "../sanitize.js";
import type { ServerDescriptor } from "../protocol/server.js";
import type { ToolInfo } from "../protocol/wire.js";
import { SchemaForm } from "./form/SchemaForm.js";
import { Picker } from "./Picker.js";

export interface ServerChoice {
  name: string;
  descriptor: ServerDescriptor;
}

export interface NewCallProps {
  servers: readonly ServerChoice[];
  loadTools(server: ServerChoice): Promise<ToolInfo[]>;
  onStart(server: ServerChoice, tool: string, args: Record<string, unknown>): void;
  onClose(): void;
  width: number;
  height: number;
}

export function NewCall({ servers, loadTools, onStart, onClose, width, height }: NewCallProps) {
  const [server, setServer] = useState<ServerChoice>();
  const [tools, setTools] = useState<ToolInfo[] | string>();
  const [tool, setTool] = useState<ToolInfo>();
  // Once per server chosen: the caller's loadTools is a new function at each render (the dashboard renders every
  // second), and an effect on it listed the server's tools again each time (100,000 tools: a core, all along).
  const load = useRef(loadTools);
  load.current = loadTools;
  useEffect(() => {
    if (!server) return;
    let live = true;
    setTools(undefined);
    load.current(server).then(
      (list) => live && setTools(list),
      (error: Error) => live && setTools(`cannot list tools: ${error.message}`),
    );
    return () => {
      live = false;
    };
  }, [server]);

  if (!server) {
    return (
      <Picker
        title="New call: which server?"
        items={servers.map((s) => ({ label: s.name, hint: s.descriptor.transport, value: s }))}
        width={width}
        height={height}
        onPick={setServer}
        onCancel={onClose}
      />
    );
  }
  if (!tool) {
    if (tools === undefined) return <Text dimColor>{`connecting to ${sanitizeLine(server.name)}…`}</Text>;
    if (typeof tools === "string") {
      return (
        <Box flexDirection="column">
          <Text color="red">{sanitizeLine(tools)}</Text>
          <Picker
            title=""
            items={[]}
            width={width}
            height={2}
            onPick={() => {}}
            onCancel={() => setServer(undefined)}
          />
        </Box>
      );
    }
    return (
      <Picker
        title={`New call on ${sanitizeLine(server.name)}: which tool?`}
        items={tools.map((t) => ({
          label: sanitizeLine(t.name),
          hint: sanitizeLine(t.description ?? "").slice(0, 60),
          value: t,
        }))}
        width={width}
        height={height}
        onPick={setTool}
        onCancel={() => setServer(undefined)}
      />
    );
  }
  return (
    <SchemaForm
      schema={tool.inputSchema}
      title={`Arguments of ${sanitizeLine(tool.name)} (${sanitizeLine(server.name)})`}
      width={width}
      submitLabel="start"
      onSubmit={(values) => onStart(server, tool.name, values)}
      onCancel={() => setTool(undefined)}
    />
  );
}
