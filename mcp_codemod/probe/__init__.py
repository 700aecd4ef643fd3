"""The dynamic probe: import a live server and run the framework's own argument handling on values
it is known to mangle (`probe.server_probe.probe_server`).

May import `rules` (each rule's probe check), `engine` (to name a target's module) and `runtime`
(what the schema markers keep); never the analysis itself, the fixer or the report."""
