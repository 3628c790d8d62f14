console.log("mcp-task: under construction");
