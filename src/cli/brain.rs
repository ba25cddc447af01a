//! The brain a command runs on: the local model, or a remote server with
//! the local model behind it when its settings say `fallback = "local"`.

use crate::brain::{
    Brain, Fallback, FallbackBrain, KnowledgeBrain, LocalBrain, LocalBrainConfig, RemoteBrain,
    RemoteBrainSettings,
};
use std::sync::Arc;

/// Opens the remote brain `remote` names (the local model loaded too when
/// it is the fallback), or else the local model, with the `knowledge`
/// model beside it when there is one ([`KnowledgeBrain`]). `local` is an
/// error (a model that is not there) only if the local model is needed.
pub async fn open(
    remote: Option<&RemoteBrainSettings>,
    local: Result<LocalBrainConfig, String>,
    knowledge: Option<LocalBrainConfig>,
) -> Result<Arc<dyn Brain>, String> {
    let load_local = || async move {
        let local = load(local?).await?;
        let Some(knowledge) = knowledge else {
            return Ok::<Arc<dyn Brain>, String>(Arc::new(local));
        };
        let name = knowledge
            .model
            .file_stem()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        tracing::info!("knowledge model: `{name}`, loaded when first asked");
        Ok(Arc::new(KnowledgeBrain::lazy(
            Arc::new(local),
            &name,
            move || {
                let knowing = LocalBrain::load(knowledge).map_err(|e| e.to_string())?;
                tracing::info!("knowledge model `{}` loaded", knowing.info().model);
                Ok(Arc::new(knowing) as Arc<dyn Brain>)
            },
        )))
    };
    let Some(settings) = remote else {
        return load_local().await;
    };
    let config = settings.config()?;
    let fallback = settings.fallback == Some(Fallback::Local);
    let remote = match RemoteBrain::connect(config).await {
        Ok(remote) => remote,
        Err(e) if fallback => {
            tracing::warn!("{e}; the local model answers");
            return load_local().await;
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
    Ok(Arc::new(FallbackBrain::new(Arc::new(remote), local)))
}

/// Loads a local model off the async threads.
async fn load(config: LocalBrainConfig) -> Result<LocalBrain, String> {
    tokio::task::spawn_blocking(move || LocalBrain::load(config))
        .await
        .map_err(|e| format!("the model loader stopped: {e}"))?
        .map_err(|e| e.to_string())
}

/// The brains of the personas that name a remote one, by persona name;
/// `fallback = "local"` puts `local` (the daemon's own brain) behind it.
pub async fn for_personas(
    personas: &[crate::persona::Persona],
    local: &Arc<dyn Brain>,
) -> Result<std::collections::HashMap<String, Arc<dyn Brain>>, String> {
    let mut brains = std::collections::HashMap::new();
    for persona in personas {
        let Some(settings) = &persona.brain else {
            continue;
        };
        let fallback = settings.fallback == Some(Fallback::Local);
        let named = |e: String| format!("persona `{}`: {e}", persona.name);
        let brain: Arc<dyn Brain> = match RemoteBrain::connect(settings.config().map_err(named)?)
            .await
        {
            Ok(remote) if fallback => Arc::new(FallbackBrain::new(Arc::new(remote), local.clone())),
            Ok(remote) => Arc::new(remote),
            Err(e) if fallback => {
                tracing::warn!("persona `{}`: {e}; the local model answers", persona.name);
                local.clone()
            }
            Err(e) => return Err(named(e.to_string())),
        };
        tracing::info!(
            "persona `{}` thinks on `{}` at {}",
            persona.name,
            brain.info().model,
            brain.info().device
        );
        brains.insert(persona.name.clone(), brain);
    }
    Ok(brains)
}
