// Server text in a form, quoted (the rule: ../../ask/quote.ts): its lines, wrapped ones included, behind a dim left border,
// the gutter the line prompt draws with GUTTER. Its children are server text made display-safe by the caller.
import { Box } from "ink";
import type { ReactNode } from "react";

export function ServerText({ children }: { readonly children: ReactNode }) {
  return (
    <Box
      flexDirection="column"
      borderStyle="single"
      borderTop={false}
      borderRight={false}
      borderBottom={false}
      borderDimColor
      paddingLeft={1}
    >
      {children}
    </Box>
  );
}
