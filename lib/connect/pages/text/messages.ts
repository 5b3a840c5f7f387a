/**
 * Every sentence the end user's connect pages show, for one language. Functions take the
 * names they mention (already plain text; the pages escape them).
 */
export interface Messages {
  /** BCP 47 tag for `<html lang>`. */
  lang: string;
  dir: 'ltr' | 'rtl';
  /** Stands in for the customer's app when the session names none. */
  theApp: string;
  /** Stands in for the provider when it is not known (an unknown link). */
  theService: string;
  forWhom: (who: string) => string;
  cancel: string;
  close: string;
  closing: string;
  canClose: string;
  cancelled: string;
  /** The message a Cancel hands to the opener (the SDK's `ConnectError`). */
  cancelledResult: string;
  working: string;
  chooser: { title: string; lead: (app: string) => string; listLabel: string };
  form: {
    title: (provider: string) => string;
    lead: (app: string, provider: string) => string;
    apiKey: string;
    username: string;
    password: string;
    setting: (name: string) => string;
    help: (provider: string) => string;
    submit: string;
    secretNote: string;
    errorTitle: string;
  };
  continueTo: {
    title: (provider: string) => string;
    lead: (provider: string) => string;
    link: (provider: string) => string;
  };
  success: {
    title: string;
    body: (provider: string, app: string) => string;
    /** After an administrator's consent: the whole organization is connected, not the person's own account. */
    organizationBody: (provider: string, app: string) => string;
  };
  /** Failure pages: a heading and one sentence, by kind. */
  failure: Record<FailureKind, { title: string; body: (provider: string, app: string) => string }>;
  /** What a refused form says above its fields. */
  formError: Record<FormErrorKind, (provider: string) => string>;
}

export type FailureKind =
  | 'unavailable'
  | 'link_expired'
  | 'link_used'
  | 'link_invalid'
  | 'attempt_expired'
  | 'attempt_used'
  | 'other_browser'
  | 'denied'
  | 'pending'
  | 'provider_failed'
  | 'not_verified'
  | 'org_not_proven'
  | 'server';

export type FormErrorKind = 'refused' | 'unreachable' | 'missing' | 'invalid_setting';
