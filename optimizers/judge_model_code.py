"""The code MLflow runs to load a tuned tribunal judge (MLflow's models-from-code).

Not imported by tribunal: ``mlflow.pyfunc.log_model(python_model=<this file>, ...)`` copies it into
the logged model, and ``mlflow.pyfunc.load_model`` executes it, which hands MLflow the model object
(:class:`tribunal.optimizers.judge_model.TunedJudge`). Nothing is pickled; the tuned program is the
sealed JSON export the model carries as its artifact.
"""

import mlflow

from tribunal.optimizers.judge_model import TunedJudge

mlflow.models.set_model(TunedJudge())
