"""One composition root per function: what it needs, built once per cold start from its environment.

``functions/<key>/handler.py`` holds a ``ColdStart`` of its root's ``build``: the first invocation
builds the function's services from the variables ``infra/wiring.py`` gives that function and the
real clock, and every later one in the same process reuses them. ``shared.py`` holds the
construction every function does the same way (the DynamoDB-backed stores), as plain functions
with no cache. Tests build services directly with fakes, or a root's ``build`` with a clock they set.
"""
