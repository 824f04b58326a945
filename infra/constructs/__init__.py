"""CDK constructs, one per capability; ``infra/stack.py`` only composes them."""
