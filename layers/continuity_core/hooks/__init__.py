"""Takes in what a harness reports (prompts, tools, compactions) once each; answers with what to inject."""
