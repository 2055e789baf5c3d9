import { HomeScreen } from "./home-screen";

export default function HomePage() {
  return <HomeScreen />;
}
