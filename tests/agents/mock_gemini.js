#!/usr/bin/env node
// tests/agents/mock_gemini.js - a scripted Gemini API (generateContent and
// streamGenerateContent) for running the real Gemini CLI offline
// (tests/e2e/agents_real_gemini.sh).
//
//   node mock_gemini.js PORT_FILE LOG_FILE [--mcp] [--max-requests N]
//                       [--lifetime S]
//
// Listens on 127.0.0.1 (port written to PORT_FILE), stops by itself after
// N requests or S seconds.  Requests that declare the shell tool are the
// agent loop: the reply follows SCRIPT by how many functionResponse parts
// the conversation holds (read TASK.md, evaluate, rewrite, evaluate,
// finish).  Other requests (routing, loop checks) get a short JSON text.
// Each request is logged to LOG_FILE as one JSON line.
'use strict';
const { mcp, log, serve } = require('./mock_server');

const shell = (command) => ({ name: 'run_shell_command', args: { command, description: 'step' } });
const evaluate = mcp ? { name: 'evaluate', args: { quick: true } } : shell('arena mcp call evaluate --quick');
const SCRIPT = [
	{ text: 'I will read the task first.', call: shell('head -n 3 TASK.md') },
	{ text: 'Now the baseline verdict.', call: evaluate },
	{ text: 'Rewriting the kernel.', call: shell("printf '\\n/* tuned by the scripted model */\\n' >> kernel.c") },
	{ text: 'Checking the new version.', call: evaluate },
	{ text: 'Done: the kernel is correct and kept.' },
];
const USAGE = (step) => ({ promptTokenCount: 100 * (step + 1), candidatesTokenCount: 10 * (step + 1), totalTokenCount: 110 * (step + 1) });


function toolNames(body) {
	const names = [];
	for (const t of body.tools || [])
		for (const f of t.functionDeclarations || []) names.push(f.name);
	return names;
}

function responses(contents) {
	const out = [];
	for (const c of contents || [])
		for (const p of c.parts || [])
			if (p.functionResponse) out.push(JSON.stringify(p.functionResponse.response || {}));
	return out;
}

serve((req, body, res, served) => {
	const url = req.url;
	if (url.includes(':countTokens')) {
		res.writeHead(200, { 'content-type': 'application/json' });
		return res.end(JSON.stringify({ totalTokens: 100 }));
	}
	if (!url.includes(':generateContent') && !url.includes(':streamGenerateContent')) {
		log({ unexpected: req.method + ' ' + url });
		res.writeHead(404, { 'content-type': 'application/json' });
		return res.end(JSON.stringify({ error: { code: 404, message: 'mock: ' + url, status: 'NOT_FOUND' } }));
	}
	const names = toolNames(body);
	const loop = names.includes('run_shell_command');
	const outs = responses(body.contents);
	const step = outs.length;
	log({ url: url.split('?')[0], step, loop, tools: names, last_response: outs.length ? outs[outs.length - 1] : null });
	let parts, usage;
	if (loop) {
		const s = SCRIPT[Math.min(step, SCRIPT.length - 1)];
		parts = [{ text: s.text }];
		if (s.call) {
			const name = names.find((n) => n === s.call.name || n.endsWith('__' + s.call.name) || n.endsWith('_arena_' + s.call.name)) || s.call.name;
			parts.push({ functionCall: { name, args: s.call.args } });
		}
		usage = USAGE(step);
	} else {
		parts = [{ text: '{"reasoning": "mock", "model_choice": "flash", "next_speaker": "user"}' }];
		usage = { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 };
	}
	const chunk = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: usage, modelVersion: 'gemini-mock' };
	if (url.includes(':streamGenerateContent')) {
		res.writeHead(200, { 'content-type': 'text/event-stream' });
		res.write(`data: ${JSON.stringify(chunk)}\n\n`);
		return res.end();
	}
	res.writeHead(200, { 'content-type': 'application/json' });
	res.end(JSON.stringify(chunk));
});
