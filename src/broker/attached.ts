// A command attached to the broker (one connection on its socket): what it is sent and what it asked for.
import type { Socket } from "node:net";
import type { QuestionHolder } from "../protocol/wire.js";
import type { SentQuestions } from "./sent-questions.js";

/** A command connected to the broker, and the tasks whose changes it is sent. */
export interface Client {
  socket: Socket;
  watching: Set<string>;
  /** It hears the broker's wire trace (tapWire). */
  tapped?: boolean;
  /** The command traces its wire: the broker relays what concerns it (relay.ts). */
  traced?: boolean;
  /** The held questions it was sent whole (sent-questions.ts): those it has are sent again as stubs. */
  sentQuestions?: SentQuestions;
  /** Who it is, as it said in its hello (hello.ts holderOf): shown to the others while it holds a question. */
  who?: QuestionHolder;
  /** It asked for work (anything but a look: see LOOKS in requests.ts): its leaving restarts the broker's grace. */
  worked?: boolean;
}
