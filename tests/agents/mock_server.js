// tests/agents/mock_server.js - what the scripted model servers share
// (mock_anthropic.js, mock_openai.js, mock_gemini.js): their command line
//
//   node mock_X.js PORT_FILE LOG_FILE [--mcp] [--max-requests N]
//                  [--lifetime S]
//
// a request log (one JSON line each in LOG_FILE), and the HTTP plumbing:
// 127.0.0.1 on a free port written to PORT_FILE, each request's JSON body
// collected, and a stop after N requests or S seconds.
'use strict';
const http = require('http');
const fs = require('fs');

const args = process.argv.slice(2);
const portFile = args[0], logFile = args[1];
const opt = (name, dflt) => {
	const i = args.indexOf(name);
	return i >= 0 ? Number(args[i + 1]) : dflt;
};
const maxRequests = opt('--max-requests', 60);
const lifetime = opt('--lifetime', 180);

exports.mcp = args.includes('--mcp');
exports.log = (o) => fs.appendFileSync(logFile, JSON.stringify(o) + '\n');

// handle(req, body, res, served): answers one request; served counts them
// from 1.
exports.serve = (handle) => {
	let served = 0;
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			served++;
			if (served >= maxRequests) setImmediate(() => server.close());
			let body = {};
			try { body = JSON.parse(Buffer.concat(chunks).toString() || '{}'); } catch (e) { /* empty */ }
			handle(req, body, res, served);
		});
	});
	server.listen(0, '127.0.0.1', () => fs.writeFileSync(portFile, String(server.address().port)));
	setTimeout(() => { server.close(); process.exit(0); }, lifetime * 1000).unref();
	server.on('close', () => setTimeout(() => process.exit(0), 200));
};
