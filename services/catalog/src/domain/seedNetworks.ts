import type { NetworkGeneration } from '@esim/vocabulary';
import type { PlanNetwork } from './plan.js';

/**
 * The mobile operators of the development catalog, per country, the
 * strongest roaming partner first: public names of real networks, so a demo
 * reads as a traveller would expect. `5` means 4G and 5G, `4` 4G only, `3`
 * 3G and 4G. A local plan lists its country's operators; a regional plan
 * roams on the first one of each country.
 */
const operatorTable = `
US AT&T:5|T-Mobile:5|Verizon:5
GB EE:5|Vodafone:5|O2:5|Three:5
FR Orange:5|SFR:5|Bouygues Telecom:5|Free Mobile:5
DE Telekom:5|Vodafone:5|O2:5
ES Movistar:5|Vodafone:5|Orange:5
IT TIM:5|Vodafone:5|WindTre:5
JP NTT Docomo:5|SoftBank:5|KDDI au:5
KR SK Telecom:5|KT:5|LG U+:5
TH AIS:5|True:5|dtac:4
SG Singtel:5|StarHub:5|M1:5
AE Etisalat:5|du:5
TR Turkcell:4|Vodafone:4|Türk Telekom:4
MX Telcel:5|AT&T:5|Movistar:4
CA Rogers:5|Bell:5|Telus:5
AU Telstra:5|Optus:5|Vodafone:4
PT MEO:5|Vodafone:5|NOS:5
NL KPN:5|Vodafone:5|Odido:5
BE Proximus:5|Orange:5|Base:4
CH Swisscom:5|Sunrise:5|Salt:5
AT A1:5|Magenta:5|Drei:5
GR Cosmote:5|Vodafone:5|Nova:4
IE Vodafone:5|Three:5|Eir:4
SE Telia:5|Tele2:5|Telenor:5|Tre:4
NO Telenor:5|Telia:5
DK TDC:5|Telenor:4|Telia:4|3:4
FI Elisa:5|Telia:5|DNA:5
PL Orange:5|Play:5|Plus:5|T-Mobile:5
CZ O2:5|T-Mobile:5|Vodafone:4
HU Magyar Telekom:5|Yettel:4|One:4
HR Hrvatski Telekom:5|A1:5|Telemach:4
RO Orange:5|Vodafone:5|Digi:4
IS Síminn:5|Vodafone:4|Nova:4
CN China Mobile:5|China Unicom:5|China Telecom:4
HK CSL:5|SmarTone:5|3HK:5|China Mobile HK:5
TW Chunghwa Telecom:5|Taiwan Mobile:5|FarEasTone:5
VN Viettel:4|Vinaphone:4|MobiFone:4
ID Telkomsel:4|Indosat:4|XL Axiata:4
MY Maxis:5|CelcomDigi:5|U Mobile:4
PH Globe:5|Smart:5
IN Jio:5|Airtel:5|Vi:4
BR Vivo:5|Claro:5|TIM:5
AR Personal:4|Claro:4|Movistar:4
CL Entel:5|Movistar:4|Claro:4
CO Claro:4|Movistar:4|Tigo:4
PE Claro:4|Movistar:4|Entel:4
SA STC:5|Mobily:5|Zain:4
QA Ooredoo:5|Vodafone:5
IL Partner:4|Cellcom:4|Pelephone:4
EG Vodafone:4|Orange:4|Etisalat:4
MA Maroc Telecom:4|Orange:4|inwi:4
ZA Vodacom:5|MTN:5|Cell C:4
KE Safaricom:4|Airtel:4
NZ One NZ:5|Spark:5|2degrees:4
BG A1:4|Vivacom:4|Yettel:4
CY Cyta:4|Epic:4
EE Telia:4|Elisa:4|Tele2:4
LV LMT:5|Tele2:4|Bite:4
LT Telia:4|Bite:4|Tele2:4
LU POST:5|Tango:4|Orange:4
MT GO:4|Epic:4|Melita:4
SK Orange:4|Slovak Telekom:5|O2:4
SI Telekom Slovenije:5|A1:4
LI FL1:4|Salt:4
RS Yettel:4|A1:4|mts:4
ME Crnogorski Telekom:4|One:4
MK A1:4|Telekom:4
AL Vodafone:4|One:4
BA BH Telecom:3|m:tel:3|HT Eronet:3
MO CTM:5|3 Macau:4
LK Dialog:4|Mobitel:4
KH Smart:4|Cellcard:4
LA Unitel:4|Lao Telecom:4
BD Grameenphone:4|Robi:4
PK Jazz:4|Zong:4
NP Ncell:4|Nepal Telecom:4
MN Unitel:4|Mobicom:4
KZ Beeline:4|Kcell:4
UZ Ucell:4|Beeline:4
PR Liberty:4|Claro:4|T-Mobile:5
GT Tigo:4|Claro:4
BZ Digi:3|Smart:3
SV Tigo:4|Claro:4
HN Tigo:4|Claro:4
NI Claro:4|Tigo:4
CR Kölbi:4|Liberty:4|Claro:4
PA Tigo:4|+Móvil:4|Digicel:4
VE Movistar:4|Digitel:3
EC Claro:4|Movistar:4
BO Entel:4|Tigo:4|Viva:3
PY Tigo:4|Personal:4
UY Antel:5|Movistar:4|Claro:4
DO Claro:4|Altice:4
KW Zain:5|Ooredoo:5|stc:5
BH Batelco:5|Zain:4|stc:4
OM Omantel:5|Ooredoo:4
JO Zain:4|Orange:4|Umniah:4
IQ Zain:3|Asiacell:4|Korek:3
TN Ooredoo:4|Orange:4|Tunisie Telecom:4
TZ Vodacom:4|Airtel:4|Tigo:4
UG MTN:4|Airtel:4
RW MTN:4|Airtel:4
NG MTN:4|Airtel:4|Glo:4
GH MTN:4|Telecel:4|AT:3
SN Orange:4|Free:4
CI Orange:4|MTN:4|Moov:3
CM MTN:4|Orange:4
ET Ethio Telecom:4|Safaricom:4
ZM MTN:4|Airtel:4
MZ Vodacom:4|Movitel:4
BW Mascom:4|Orange:4
NA MTC:4|TN Mobile:3
MU my.t:4|Emtel:4
FJ Vodafone:4|Digicel:4
PG Digicel:4|Telikom:3
NC OPT:4
PF Vini:4|Vodafone:3
WS Digicel:4|Vodafone:4
TO Digicel:4|TCC:3
VU Digicel:4|Vodafone:3
`;

const generationsOf: Record<string, NetworkGeneration[]> = { '3': ['3G', '4G'], '4': ['4G'], '5': ['4G', '5G'] };

const operators: Map<string, PlanNetwork[]> = new Map(
  operatorTable
    .trim()
    .split('\n')
    .map((line) => {
      const country = line.slice(0, 2);
      const networks = line
        .slice(3)
        .split('|')
        .map((entry) => {
          const at = entry.lastIndexOf(':');
          return { country, operator: entry.slice(0, at), generations: generationsOf[entry.slice(at + 1)] ?? ['4G'] };
        });
      return [country, networks];
    }),
);

/** Every operator of a local plan's country. */
export function localNetworks(country: string): PlanNetwork[] {
  return operators.get(country) ?? [];
}

/** The roaming partner (the first operator) of each country a regional plan covers. */
export function regionalNetworks(countries: string[]): PlanNetwork[] {
  return countries.flatMap((country) => (operators.get(country) ?? []).slice(0, 1));
}
