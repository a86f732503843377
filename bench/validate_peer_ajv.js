// bench/validate_peer_ajv.js SCHEMA FILE.jsonl — ajv 8 + ajv-formats (what ajv-cli runs) over JSONL: one line per invalid record.
"use strict";
const fs = require("fs");
const readline = require("readline");
const Ajv2020 = require("ajv/dist/2020");
const addFormats = require("ajv-formats");

const ajv = new Ajv2020({ strict: false });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(fs.readFileSync(process.argv[2], "utf8")));
const rl = readline.createInterface({ input: fs.createReadStream(process.argv[3]), crlfDelay: Infinity });
let lineno = 0, invalid = 0;
const out = [];
rl.on("line", (line) => {
	lineno++;
	if (!line.trim()) return;
	if (!validate(JSON.parse(line))) {
		invalid++;
		const e = validate.errors[0];
		out.push(`${process.argv[3]}:${lineno}: ${e.instancePath || "/"}: ${e.message}`);
	}
});
rl.on("close", () => {
	process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
	process.exitCode = invalid ? 1 : 0;
});
