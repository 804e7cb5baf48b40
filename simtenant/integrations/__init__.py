"""Integrations with other frameworks, each in its own module and each importable without the
framework installed (it is needed only when an environment is built): ``simtenant.integrations.verifiers``
(``vf-eval`` / ``load_environment``)."""
