"""The judging service layer: settings + items -> typed results (:mod:`tribunal.service.judging`)."""
