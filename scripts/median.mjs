// The median of the bench scripts' timings (the upper one of an even count).
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
