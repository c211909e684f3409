/// <reference lib="dom" />
// The widget's languages: English is bundled (locales/en.json); every other language is one file
// of the same keys (locales/<code>.json) that the service serves at /widget/lang/<code>.json and
// the widget fetches only when it is the one chosen: from the element's `lang`, then the page's
// <html lang>, then the browser's languages. Plural messages hold the forms Intl.PluralRules names
// for the language; times go through Intl.RelativeTimeFormat and Intl.DateTimeFormat.
import english from "./locales/en.json" with { type: "json" };

export type Messages = typeof english;
export type MessageKey = keyof Messages;
/** A message with plural forms (zero, one, two, few, many, other: the ones its language uses). */
export type PluralKey = { [K in MessageKey]: Messages[K] extends string ? never : K }[MessageKey];
export type TextKey = Exclude<MessageKey, PluralKey>;

/** Every language there is a file for (locales/<code>.json); the unit test keeps this in step. */
export const LANGUAGES = ["ar", "de", "en", "es", "fr", "he", "it", "ja", "nl", "pl", "pt", "ru", "tr", "zh"] as const;
export type Language = (typeof LANGUAGES)[number];
const RIGHT_TO_LEFT = new Set<string>(["ar", "he"]);

/** The first of `wanted` (BCP 47 tags, in preference order) there is a file for, by its primary subtag; else English. */
export function chooseLanguage(wanted: readonly (string | null | undefined)[]): Language {
  for (const tag of wanted) {
    const primary = tag?.trim().toLowerCase().split(/[-_]/)[0];
    const found = LANGUAGES.find((code) => code === primary);
    if (found) return found;
  }
  return "en";
}

/** Fills `{name}` placeholders. */
const fill = (template: string, values: Record<string, string | number>) =>
  template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));

export class Translator {
  readonly dir: "ltr" | "rtl";
  private readonly plurals: Intl.PluralRules;
  private readonly relative: Intl.RelativeTimeFormat;
  private readonly dates: Intl.DateTimeFormat;
  private readonly lists: Intl.ListFormat;

  constructor(
    readonly lang: Language,
    private readonly messages: Messages,
  ) {
    this.dir = RIGHT_TO_LEFT.has(lang) ? "rtl" : "ltr";
    this.plurals = new Intl.PluralRules(lang);
    this.relative = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
    this.dates = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });
    this.lists = new Intl.ListFormat(lang, { type: "conjunction" });
  }

  t(key: TextKey, values: Record<string, string | number> = {}): string {
    return fill(this.messages[key], values);
  }

  /** The plural form of `key` for `n` (its language's rule), with `{n}` and `values` filled. */
  plural(key: PluralKey, n: number, values: Record<string, string | number> = {}): string {
    const forms = this.messages[key] as Record<string, string>;
    const form = forms[this.plurals.select(n)] ?? forms.other!;
    return fill(form, { ...values, n: n.toLocaleString(this.lang) });
  }

  list(items: string[]): string {
    return this.lists.format(items);
  }

  date(at: Date): string {
    return this.dates.format(at);
  }

  /** "3 minutes ago", "yesterday" …; the date itself past a month. */
  ago(at: Date, now = Date.now()): string {
    const seconds = Math.round((at.getTime() - now) / 1000);
    const steps: Array<[Intl.RelativeTimeFormatUnit, number]> = [
      ["second", 60],
      ["minute", 60],
      ["hour", 24],
      ["day", 30],
    ];
    let value = seconds;
    for (const [unit, size] of steps) {
      if (Math.abs(value) < size)
        return this.relative.format(unit === "second" && Math.abs(value) < 10 ? 0 : value, unit);
      value = Math.round(value / size);
    }
    return this.date(at);
  }
}

export const englishTranslator = () => new Translator("en", english);

/**
 * The translator of `lang`: English at once; another language from its file under `base`
 * (the service), versioned by `version` so the file is cached for good. English when it cannot be had.
 */
export async function loadTranslator(lang: Language, base: string, version: string): Promise<Translator> {
  if (lang === "en") return englishTranslator();
  try {
    const res = await fetch(new URL(`/widget/lang/${lang}.json?v=${version}`, base));
    if (!res.ok) return englishTranslator();
    return new Translator(lang, { ...english, ...((await res.json()) as Partial<Messages>) });
  } catch {
    return englishTranslator();
  }
}
