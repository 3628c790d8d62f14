// Preloaded (node --require) into a server nobody here wrote that listens on every interface (the SDK's shipped
// examples call app.listen(PORT)): its listen on a bare port binds 127.0.0.1, so tests stay on loopback.
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" && typeof args[1] !== "string") args.splice(1, 0, "127.0.0.1");
  return listen.apply(this, args);
};
