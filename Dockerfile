# RadConcord for a team: the same pinned requirements as `make run`, served by serve.py, which
# refuses to listen on 0.0.0.0 unless the secrets configure sign-in and an allow-list.
#   docker build -t radconcord .
#   docker run -p 8501:8501 -v /srv/radconcord/data:/data \
#     -v /srv/radconcord/secrets.toml:/app/.streamlit/secrets.toml:ro radconcord
# The store lives in the /data volume; secrets are mounted at run time, never built into the image.
# First run: the page says /data/radconcord.duckdb does not exist; a researcher clicks "Make a new, empty store".
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    RADCONCORD_STORE=/data/radconcord.duckdb

WORKDIR /app
COPY requirements.txt constraints.txt ./
RUN python -m pip install --no-cache-dir -c constraints.txt -r requirements.txt
COPY app.py serve.py ./
COPY core ./core
COPY ui ./ui
COPY pages ./pages
COPY .streamlit/config.toml ./.streamlit/config.toml

RUN useradd --create-home --uid 10001 radconcord && mkdir -p /data && chown radconcord /data
USER radconcord
VOLUME /data
EXPOSE 8501
CMD ["python", "serve.py", "--server.address", "0.0.0.0", "--server.port", "8501"]
