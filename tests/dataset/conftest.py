from tests.agent.conftest import runs  # noqa: F401  (the short finished runs, trained once per session)
