import type { Messages } from './messages.js';

const again = 'Start again from the application.';
// A sentence may open with a name or with "the application".
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** English, the shipped language. */
export const en: Messages = {
  lang: 'en',
  dir: 'ltr',
  theApp: 'the application',
  theService: 'this service',
  forWhom: (who) => `Connecting for ${who}`,
  cancel: 'Cancel',
  close: 'Close',
  closing: 'This window will close.',
  canClose: 'You can close this window.',
  cancelled: 'Cancelled. You can close this window.',
  cancelledResult: 'The end user cancelled the connection.',
  working: 'Connecting…',
  chooser: {
    title: 'Choose what to connect',
    lead: (app) => `${cap(app)} asks you to connect one of these accounts.`,
    listLabel: 'Services you can connect',
  },
  form: {
    title: (provider) => `Connect ${provider}`,
    lead: (app, provider) => `${cap(app)} will use these details to reach your ${provider} account on your behalf.`,
    apiKey: 'API key',
    username: 'Username',
    password: 'Password',
    setting: (name) => name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()),
    help: (provider) => `Where do I find these in ${provider}?`,
    submit: 'Connect',
    secretNote: 'Sent over an encrypted connection and stored encrypted. Never shown again.',
    errorTitle: 'Not connected yet',
  },
  continueTo: {
    title: (provider) => `Continue to ${provider}`,
    lead: (provider) => `Taking you to ${provider} to approve access…`,
    link: (provider) => `Continue to ${provider}`,
  },
  success: {
    title: 'Connected',
    body: (provider, app) => `Your ${provider} account is now connected to ${app}.`,
    organizationBody: (provider, app) =>
      `Your organization's ${provider} is now connected to ${app}. The consent applies to everyone in the organization.`,
  },
  failure: {
    unavailable: {
      title: 'Connection not available',
      body: (provider, app) => `Connecting ${provider} isn't available right now. Please contact ${app} for help.`,
    },
    link_expired: {
      title: 'This link has expired',
      body: (_p, app) => `Connect links are valid for a short time. Ask ${app} for a new one.`,
    },
    link_used: {
      title: 'This link was already used',
      body: (_p, app) => `Each connect link works once. Ask ${app} for a new one.`,
    },
    link_invalid: { title: 'This link is not valid', body: (_p, app) => `Open the connect link again from ${app}.` },
    attempt_expired: {
      title: 'This took too long',
      body: () => `The authorization expired before it finished; nothing was stored. ${again}`,
    },
    attempt_used: {
      title: 'Already used',
      body: () => `This authorization was already completed or abandoned. ${again}`,
    },
    other_browser: {
      title: 'Started somewhere else',
      body: () =>
        `This authorization was started in another browser or window, so it can't finish here; nothing was stored. ${again}`,
    },
    denied: {
      title: 'Access not granted',
      body: (provider) => `Access to ${provider} was not granted, so nothing was connected. ${again}`,
    },
    pending: {
      title: 'Waiting for approval',
      body: (provider) =>
        `The installation waits for an owner of the ${provider} organization to approve it. Connect again once it is approved.`,
    },
    provider_failed: {
      title: 'Could not connect',
      body: (provider) => `${provider} did not complete the authorization; nothing was stored. ${again}`,
    },
    not_verified: {
      title: 'Could not confirm the installation',
      body: (provider) =>
        `This ${provider} installation could not be confirmed as one you can access; nothing was stored. ${again}`,
    },
    org_not_proven: {
      title: 'Could not confirm the organization',
      body: () => `The organization you approved for could not be confirmed; nothing was stored. ${again}`,
    },
    server: {
      title: 'Something went wrong',
      body: () => 'Something went wrong on our side; nothing was stored. Please try again.',
    },
  },
  formError: {
    refused: (provider) => `${provider} did not accept these details. Check them and try again.`,
    unreachable: (provider) => `${provider} could not be reached to check these details. Please try again.`,
    missing: () => 'Fill in every field.',
    invalid_setting: () => 'One of the values is not valid. Check it and try again.',
  },
};
