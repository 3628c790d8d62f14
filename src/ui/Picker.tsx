// A list to pick one item from: ↑/↓ to move, Enter to pick, Esc to go back.
import { Box, Text, useInput } from "ink";
import { useState } from "react";
import { fit } from "./format.js";
import { windowStart } from "./TaskList.js";

export interface PickerProps<T> {
  title: string;
  items: ReadonlyArray<{ label: string; hint?: string; value: T }>;
  width: number;
  height: number;
  onPick(value: T): void;
  onCancel(): void;
}

export function Picker<T>({ title, items, width, height, onPick, onCancel }: PickerProps<T>) {
  const [selected, setSelected] = useState(0);
  useInput((input, key) => {
    if (key.escape) onCancel();
    else if (key.upArrow || input === "k") setSelected((i) => Math.max(0, i - 1));
    else if (key.downArrow || input === "j") setSelected((i) => Math.min(items.length - 1, i + 1));
    else if (key.return && items[selected]) onPick(items[selected].value);
  });
  const rows = Math.max(1, height - 2);
  const start = windowStart(items.length, selected, rows);
  return (
    <Box flexDirection="column" width={width}>
      <Text bold>{title}</Text>
      {items.length === 0 ? <Text dimColor> (nothing to pick)</Text> : null}
      {items.slice(start, start + rows).map((item, i) => (
        <Text key={start + i} inverse={start + i === selected} wrap="truncate">
          {fit(`${start + i === selected ? "›" : " "} ${item.label}`, Math.min(40, width))}
          <Text dimColor>{item.hint ? ` ${item.hint}` : ""}</Text>
        </Text>
      ))}
    </Box>
  );
}
