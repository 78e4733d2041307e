# RadJudge for a team: the same pinned requirements as `make run`, served by serve.py, which
# refuses to listen on 0.0.0.0 unless the secrets configure sign-in and an allow-list.
#   docker build -t radjudge .
#   docker run -p 8501:8501 -v /srv/radjudge/data:/data \
#     -v /srv/radjudge/secrets.toml:/app/.streamlit/secrets.toml:ro radjudge
# The store lives in the /data volume; secrets are mounted at run time, never built into the image.
# First run: the page says /data/radjudge.duckdb does not exist; a researcher clicks "Make a new, empty store".
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    RADJUDGE_STORE=/data/radjudge.duckdb

WORKDIR /app
COPY requirements.txt constraints.txt ./
RUN python -m pip install --no-cache-dir -c constraints.txt -r requirements.txt
COPY app.py serve.py ./
COPY core ./core
COPY pages ./pages
COPY .streamlit/config.toml ./.streamlit/config.toml

RUN useradd --create-home --uid 10001 radjudge && mkdir -p /data && chown radjudge /data
USER radjudge
VOLUME /data
EXPOSE 8501
CMD ["python", "serve.py", "--server.address", "0.0.0.0", "--server.port", "8501"]
