"""A participant session, whatever the task: plan, runner, lock, files guard, status, texts, opening."""
