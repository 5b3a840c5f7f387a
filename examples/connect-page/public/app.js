// The customer's frontend: a session comes from its own backend (never the secret key here),
// then the SDK opens the connect link and reports the outcome.
import { connect, ConnectError } from './sdk/index.js';

const form = document.getElementById('connect-form');
const result = document.getElementById('result');
const integration = document.getElementById('integration');
integration.value = new URLSearchParams(location.search).get('integration') ?? '';

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  result.textContent = 'Connecting…';
  try {
    // A fresh session per attempt (tokens are single-use). Browsers allow a popup shortly
    // after the click; for the strictest ones, fetch the session before the click instead.
    const session = await fetch('./api/connect-session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ integration: integration.value }),
    }).then((res) => res.json());
    const connection = await connect({ connectLink: session.connect_link, integration: integration.value });
    result.textContent = `connected: ${connection.providerConfigKey} ${connection.connectionId}`;
  } catch (error) {
    result.textContent = ConnectError.is(error) ? `error: ${error.code}: ${error.message}` : `error: ${error}`;
  }
});
