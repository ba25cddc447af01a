//! The brain a command runs on: the local model, or a remote server with
//! the local model behind it when its settings say `fallback = "local"`.

use crate::brain::{
    Brain, Fallback, FallbackBrain, LocalBrain, LocalBrainConfig, RemoteBrain, RemoteBrainSettings,
};
use std::sync::Arc;

/// Opens the remote brain `remote` names (the local model loaded too when
/// it is the fallback), or else the local model. `local` is an error (a
/// model that is not there) only if the local model is needed.
pub async fn open(
    remote: Option<&RemoteBrainSettings>,
    local: Result<LocalBrainConfig, String>,
) -> Result<Arc<dyn Brain>, String> {
    let load_local = || async move {
        let local = local?;
        tokio::task::spawn_blocking(move || LocalBrain::load(local))
            .await
            .map_err(|e| format!("the model loader stopped: {e}"))?
            .map_err(|e| e.to_string())
    };
    let Some(settings) = remote else {
        return Ok(Arc::new(load_local().await?));
    };
    let config = settings.config()?;
    let fallback = settings.fallback == Some(Fallback::Local);
    let remote = match RemoteBrain::connect(config).await {
        Ok(remote) => remote,
        Err(e) if fallback => {
            tracing::warn!("{e}; the local model answers");
            return Ok(Arc::new(load_local().await?));
        }
        Err(e) => return Err(e.to_string()),
    };
    tracing::info!(
        "remote brain: model `{}` at {}",
        remote.info().model,
        remote.info().device
    );
    if !fallback {
        return Ok(Arc::new(remote));
    }
    let local = load_local().await?;
    Ok(Arc::new(FallbackBrain::new(
        Arc::new(remote),
        Arc::new(local),
    )))
}
