"""What an operator and his monitoring see of a running bot: whether it is alive and ready
(`readiness`), what it counted (`metrics`, in Prometheus' text format) and the routes that
serve both (`routes`)."""
